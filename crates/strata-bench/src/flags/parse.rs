//! gflags-compatible command-line parsing driven by the flag table.
//!
//! Accepted forms (as gflags, which db_bench uses): `--flag=value`,
//! `-flag=value`, `--flag value` (non-bool), bare `--flag` and `--noflag` for
//! booleans, booleans spelled `1/0/true/false/t/f/yes/no/y/n` (any case),
//! integers with an optional `0x` prefix. The last occurrence wins. `--`
//! ends flag parsing; other positional arguments are ignored, as gflags does.

use std::collections::BTreeMap;

use super::table::{lookup, FlagSpec, Kind, FLAGS};

/// A parse error, displayed exactly as db_bench (gflags) prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlagError(pub String);

impl std::fmt::Display for FlagError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FlagError {}

/// Flag values after parsing: every flag of the table, default or given.
#[derive(Debug, Clone)]
pub struct FlagValues {
    values: BTreeMap<&'static str, String>,
    given: Vec<&'static str>,
}

impl FlagValues {
    /// The (normalised) text value of flag `name`.
    pub fn raw(&self, name: &str) -> &str {
        self.values.get(name).map_or("", String::as_str)
    }
    /// Whether `name` was given on the command line.
    pub fn was_given(&self, name: &str) -> bool {
        self.given.contains(&name)
    }
    /// All flags and their effective values, by name.
    pub fn all(&self) -> &BTreeMap<&'static str, String> {
        &self.values
    }
}

/// Parses a boolean the way gflags does; `None` if it is not one.
pub fn parse_bool(text: &str) -> Option<bool> {
    match text.to_ascii_lowercase().as_str() {
        "1" | "t" | "true" | "y" | "yes" => Some(true),
        "0" | "f" | "false" | "n" | "no" => Some(false),
        _ => None,
    }
}

/// Parses a signed integer with an optional `0x` prefix.
pub fn parse_i64(text: &str) -> Option<i64> {
    let t = text.trim();
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let v = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i64::from_str_radix(hex, 16).ok()?
    } else {
        body.parse::<i64>().ok()?
    };
    Some(if neg { -v } else { v })
}

/// Parses an unsigned integer with an optional `0x` prefix.
pub fn parse_u64(text: &str) -> Option<u64> {
    let t = text.trim();
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()
    } else {
        t.parse::<u64>().ok()
    }
}

fn validate(spec: &FlagSpec, value: &str) -> Result<String, FlagError> {
    let ok = match spec.kind {
        Kind::Bool => parse_bool(value).map(|b| b.to_string()),
        Kind::I32 => parse_i64(value)
            .filter(|v| i32::try_from(*v).is_ok())
            .map(|v| v.to_string()),
        Kind::I64 => parse_i64(value).map(|v| v.to_string()),
        Kind::U64 => parse_u64(value).map(|v| v.to_string()),
        Kind::F64 => value
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .map(|_| value.trim().to_string()),
        Kind::Str => Some(value.to_string()),
    };
    ok.ok_or_else(|| {
        FlagError(format!(
            "ERROR: illegal value '{value}' specified for {} flag '{}'",
            spec.kind.gflags_name(),
            spec.name
        ))
    })
}

/// Parses `args` (everything after `strata bench`) against the flag table.
pub fn parse_args(args: &[String]) -> Result<FlagValues, FlagError> {
    let mut values: BTreeMap<&'static str, String> = FLAGS
        .iter()
        .map(|s| (s.name, s.default.to_string()))
        .collect();
    let mut given = Vec::new();
    // gflags' --undefok=a,b: unknown flags with these names are ignored.
    let undefok: Vec<String> = args
        .iter()
        .filter_map(|a| a.trim_start_matches('-').strip_prefix("undefok="))
        .flat_map(|v| v.split(',').map(str::to_string).collect::<Vec<_>>())
        .collect();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" {
            break;
        }
        let Some(body) = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-')) else {
            continue; // positional: ignored, as gflags leaves it to the program
        };
        if body.is_empty() {
            continue;
        }
        let (name, inline_value) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let (spec, value) = match lookup(name) {
            Some(spec) => {
                let value = match (inline_value, spec.kind) {
                    (Some(v), _) => v,
                    (None, Kind::Bool) => "true".to_string(),
                    (None, _) => {
                        let Some(next) = args.get(i) else {
                            return Err(FlagError(format!(
                                "ERROR: flag '{}' is missing its argument; flag description: {}",
                                spec.name, spec.help
                            )));
                        };
                        i += 1;
                        next.clone()
                    }
                };
                (spec, value)
            }
            None => {
                let negated = name
                    .strip_prefix("no")
                    .and_then(lookup)
                    .filter(|s| s.kind == Kind::Bool && inline_value.is_none());
                let tolerated = undefok
                    .iter()
                    .any(|u| u == name || name.strip_prefix("no") == Some(u));
                match negated {
                    Some(spec) => (spec, "false".to_string()),
                    None if tolerated => continue,
                    None => {
                        return Err(FlagError(format!(
                            "ERROR: unknown command line flag '{name}'"
                        )))
                    }
                }
            }
        };
        let value = validate(spec, &value)?;
        values.insert(spec.name, value);
        if !given.contains(&spec.name) {
            given.push(spec.name);
        }
    }
    Ok(FlagValues { values, given })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<FlagValues, FlagError> {
        parse_args(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn defaults_without_arguments() {
        let v = p(&[]).unwrap();
        assert_eq!(v.raw("num"), "1000000");
        assert_eq!(v.raw("cache_size"), "8388608");
        assert_eq!(v.raw("sync"), "false");
        assert!(!v.was_given("num"));
    }

    #[test]
    fn syntax_variants() {
        let v = p(&[
            "--num=5",
            "-key_size=20",
            "--value_size",
            "300",
            "-threads",
            "3",
        ])
        .unwrap();
        assert_eq!(v.raw("num"), "5");
        assert_eq!(v.raw("key_size"), "20");
        assert_eq!(v.raw("value_size"), "300");
        assert_eq!(v.raw("threads"), "3");
        assert!(v.was_given("num"));
    }

    #[test]
    fn booleans_in_all_spellings() {
        for (arg, want) in [
            ("--sync", "true"),
            ("--sync=1", "true"),
            ("--sync=0", "false"),
            ("--sync=true", "true"),
            ("--sync=False", "false"),
            ("-sync=yes", "true"),
            ("--nosync", "false"),
            ("-nosync", "false"),
        ] {
            assert_eq!(p(&[arg]).unwrap().raw("sync"), want, "{arg}");
        }
    }

    #[test]
    fn bool_does_not_consume_next_argument() {
        let v = p(&["--histogram", "--num=3"]).unwrap();
        assert_eq!(v.raw("histogram"), "true");
        assert_eq!(v.raw("num"), "3");
    }

    #[test]
    fn last_occurrence_wins_and_hex_accepted() {
        let v = p(&["--num=5", "--num=0x10"]).unwrap();
        assert_eq!(v.raw("num"), "16");
    }

    #[test]
    fn unknown_flag_is_named_like_db_bench() {
        let e = p(&["--foo=1"]).unwrap_err();
        let golden = include_str!("../../testdata/rocksdb-7.8.3/error-unknown-flag.stderr");
        assert_eq!(format!("{e}\n"), golden);
        assert!(p(&["--nonum"]).is_err(), "--no prefix only for booleans");
    }

    #[test]
    fn illegal_values_are_named_like_db_bench() {
        let golden = include_str!("../../testdata/rocksdb-7.8.3/error-illegal-int.stderr");
        assert_eq!(format!("{}\n", p(&["--num=abc"]).unwrap_err()), golden);
        let golden = include_str!("../../testdata/rocksdb-7.8.3/error-illegal-bool.stderr");
        assert_eq!(format!("{}\n", p(&["--sync=maybe"]).unwrap_err()), golden);
        assert!(p(&["--threads=99999999999"]).is_err(), "int32 overflow");
        assert!(p(&["--compression_ratio=x"]).is_err());
        assert!(p(&["--subcompactions=-1"]).is_err(), "uint64");
    }

    #[test]
    fn undefok_ignores_listed_unknown_flags() {
        let v = p(&[
            "--undefok=use_ribbon_filter,pin_l0",
            "--use_ribbon_filter=1",
            "--nopin_l0",
            "--num=4",
        ])
        .unwrap();
        assert_eq!(v.raw("num"), "4");
        assert!(p(&["--undefok=a", "--b=1"]).is_err(), "only listed names");
    }

    #[test]
    fn missing_argument_is_an_error() {
        let e = p(&["--num"]).unwrap_err();
        assert!(e.0.contains("'num' is missing its argument"), "{e}");
    }

    #[test]
    fn double_dash_ends_parsing() {
        let v = p(&["--", "--foo=1"]).unwrap();
        assert_eq!(v.raw("num"), "1000000");
    }
}
