//! Fills in the header templates cmake would configure: `#cmakedefine01 X`
//! lines and `${X}` placeholders, from a table of values. A name missing
//! from the table is an error, so a template that grows a setting fails the
//! build instead of compiling with a guess.

use std::collections::BTreeMap;

/// Configures `template` with `values`; `Err` names what is missing.
pub fn configure(template: &str, values: &BTreeMap<&str, &str>) -> Result<String, String> {
    let mut out = String::with_capacity(template.len());
    for line in template.lines() {
        let line = if let Some(name) = line.trim().strip_prefix("#cmakedefine01 ") {
            let name = name.trim();
            let v = values
                .get(name)
                .ok_or_else(|| format!("no value for #cmakedefine01 {name}"))?;
            format!("#define {name} {v}")
        } else if let Some(rest) = line.trim().strip_prefix("#cmakedefine ") {
            // `#cmakedefine X 1`: defined when X is set (to anything but 0).
            let name = rest.split_whitespace().next().unwrap_or_default();
            let v = values
                .get(name)
                .ok_or_else(|| format!("no value for #cmakedefine {name}"))?;
            if *v == "0" {
                format!("/* #undef {name} */")
            } else {
                format!("#define {name} {v}")
            }
        } else {
            substitute(line, values)?
        };
        out.push_str(&line);
        out.push('\n');
    }
    Ok(out)
}

/// Replaces each `${NAME}` in `line`.
fn substitute(line: &str, values: &BTreeMap<&str, &str>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let end = rest[i..]
            .find('}')
            .ok_or_else(|| format!("unclosed ${{ in {line:?}"))?;
        let name = &rest[i + 2..i + end];
        out.push_str(
            values
                .get(name)
                .ok_or_else(|| format!("no value for ${{{name}}}"))?,
        );
        rest = &rest[i + end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}
