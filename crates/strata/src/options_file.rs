//! The `OPTIONS-NNNNNN` file: the options in effect, as text a person can
//! read and [`Options::from_str`](std::str::FromStr) can parse back, with a
//! CRC32C over the body. Layout in `docs/formats/options.md`.

use std::path::Path;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::filename::{options_file_name, temp_file_name, FileNumber};
use crate::fs::FileSystem;
use crate::options::Options;

/// Format version written in the `[Version]` section.
pub const OPTIONS_FILE_VERSION: u32 = 1;

/// Renders the file body (everything the checksum covers): the DB's
/// options (with the default family's), then a `[CFOptions "name"]`
/// section per other column family with its column-family options.
pub fn render(o: &Options, families: &[(String, Options)]) -> String {
    let mut s = String::new();
    s.push_str("# Strata options file: the options this DB was last opened with.\n");
    s.push_str("# Format: docs/formats/options.md. Do not edit: the checksum line covers it.\n");
    s.push_str("[Version]\n");
    s.push_str(&format!("  strata_version={}\n", env!("CARGO_PKG_VERSION")));
    s.push_str(&format!("  options_file_version={OPTIONS_FILE_VERSION}\n"));
    s.push_str("[DBOptions]\n");
    for (k, v) in o.to_pairs() {
        s.push_str(&format!("  {k}={v}\n"));
    }
    for (name, fo) in families {
        s.push_str(&format!("[CFOptions \"{name}\"]\n"));
        for (k, v) in fo.to_pairs() {
            if !crate::db::DB_WIDE_OPTIONS.contains(&k) {
                s.push_str(&format!("  {k}={v}\n"));
            }
        }
    }
    s
}

/// Writes `OPTIONS-number` atomically (temp file, sync, rename, dir sync).
///
/// # Errors
/// I/O errors.
pub fn write(
    fs: &Arc<dyn FileSystem>,
    dir: &Path,
    number: FileNumber,
    o: &Options,
    families: &[(String, Options)],
) -> Result<()> {
    let body = render(o, families);
    let crc = crc32c::crc32c(body.as_bytes());
    let tmp = temp_file_name(dir, number);
    let mut f = fs.create(&tmp)?;
    f.append(body.as_bytes())?;
    f.append(format!("checksum={crc:08x}\n").as_bytes())?;
    f.sync()?;
    drop(f);
    fs.rename(&tmp, &options_file_name(dir, number))?;
    fs.sync_dir(dir)
}

/// Parses an OPTIONS file's bytes back into the DB's options (the file
/// system and other non-text fields are defaults).
///
/// # Errors
/// `Corruption` naming `file` and the offset of the bad line or checksum.
pub fn parse(data: &[u8], file: &str) -> Result<Options> {
    Ok(parse_families(data, file)?.0)
}

/// Parses an OPTIONS file's bytes into the DB's options and each other
/// column family's (name, options): a family's DB-wide options are the
/// DB's.
///
/// # Errors
/// As [`parse`].
pub fn parse_families(data: &[u8], file: &str) -> Result<(Options, Vec<(String, Options)>)> {
    let text = std::str::from_utf8(data).map_err(|e| {
        Error::corruption(file, e.valid_up_to() as u64, "OPTIONS file is not UTF-8")
    })?;
    let body_end = text
        .rfind("checksum=")
        .ok_or_else(|| Error::corruption(file, data.len() as u64, "missing checksum line"))?;
    let (body, tail) = text.split_at(body_end);
    let want = tail
        .trim_end()
        .strip_prefix("checksum=")
        .and_then(|h| u32::from_str_radix(h, 16).ok())
        .ok_or_else(|| Error::corruption(file, body_end as u64, "malformed checksum line"))?;
    let got = crc32c::crc32c(body.as_bytes());
    if got != want {
        return Err(Error::corruption(
            file,
            body_end as u64,
            format!("checksum mismatch: stored {want:08x}, computed {got:08x}"),
        ));
    }
    let mut o = Options::default();
    let mut families: Vec<(String, Options)> = Vec::new();
    let mut section = "";
    let mut offset = 0u64;
    for line in body.split_inclusive('\n') {
        let l = line.trim();
        if l.starts_with('[') {
            section = l;
            if let Some(rest) = l.strip_prefix("[CFOptions ") {
                let name = rest
                    .strip_suffix(']')
                    .and_then(|n| n.strip_prefix('"'))
                    .and_then(|n| n.strip_suffix('"'))
                    .ok_or_else(|| Error::corruption(file, offset, format!("bad section '{l}'")))?;
                families.push((name.to_string(), o.clone()));
            }
        } else if !l.is_empty() && !l.starts_with('#') {
            let target = if section == "[DBOptions]" {
                Some(&mut o)
            } else if section.starts_with("[CFOptions ") {
                families.last_mut().map(|(_, fo)| fo)
            } else {
                None
            };
            if let Some(target) = target {
                let (k, v) = l
                    .split_once('=')
                    .ok_or_else(|| Error::corruption(file, offset, format!("bad line '{l}'")))?;
                let (k, v) = (k.trim(), v.trim());
                if k == "merge_operator" && v != "nullptr" && crate::merge::builtin(v).is_none() {
                    // An application's own operator: keep its name (the
                    // operator itself is in the application's code).
                    target.merge_operator = Some(Arc::new(crate::merge::NamedOnly::new(v)));
                } else {
                    target
                        .set(k, v)
                        .map_err(|e| Error::corruption(file, offset, e.to_string()))?;
                }
            }
        }
        offset += line.len() as u64;
    }
    Ok((o, families))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::default_fs;

    #[test]
    fn round_trip_and_detect_damage() {
        let dir = tempfile::tempdir().unwrap();
        let fs = default_fs();
        let o = Options {
            write_buffer_size: 12345,
            ..Options::default()
        };
        write(&fs, dir.path(), 7, &o, &[]).unwrap();
        let path = options_file_name(dir.path(), 7);
        let data = std::fs::read(&path).unwrap();
        let back = parse(&data, "OPTIONS-000007").unwrap();
        assert_eq!(back.to_string(), o.to_string());
        let mut bad = data.clone();
        let i = bad.iter().position(|&b| b == b'1').unwrap();
        bad[i] = b'9';
        let e = parse(&bad, "OPTIONS-000007").unwrap_err();
        assert!(
            e.is_corruption() && e.to_string().contains("OPTIONS-000007"),
            "{e}"
        );
        assert!(parse(&data[..data.len() / 2], "x")
            .unwrap_err()
            .is_corruption());
    }

    #[test]
    fn merge_operators_are_recorded_by_name() {
        struct Concat;
        impl crate::merge::MergeOperator for Concat {
            fn name(&self) -> &str {
                "MyConcat"
            }
            fn full_merge(&self, _: &[u8], _: Option<&[u8]>, _: &[&[u8]]) -> Option<Vec<u8>> {
                Some(Vec::new())
            }
        }
        let o = Options {
            merge_operator: Some(Arc::new(Concat)),
            ..Options::default()
        };
        let cf = Options {
            merge_operator: crate::merge::builtin("uint64add"),
            ..Options::default()
        };
        let body = render(&o, &[("counters".to_string(), cf.clone())]);
        assert!(body.contains("  merge_operator=MyConcat\n"), "{body}");
        assert!(
            body.contains("  merge_operator=UInt64AddOperator\n"),
            "{body}"
        );
        let dir = tempfile::tempdir().unwrap();
        write(
            &default_fs(),
            dir.path(),
            3,
            &o,
            &[("counters".to_string(), Options::default())],
        )
        .unwrap();
        let data = std::fs::read(options_file_name(dir.path(), 3)).unwrap();
        let (db, families) = parse_families(&data, "OPTIONS-000003").unwrap();
        // The application's operator keeps its name; it cannot merge.
        let m = db.merge_operator.unwrap();
        assert_eq!(m.name(), "MyConcat");
        assert!(m.full_merge(b"k", None, &[b"x"]).is_none());
        assert!(families[0].1.merge_operator.is_none());
        let data = render(&cf, &[]);
        let crc = crc32c::crc32c(data.as_bytes());
        let file = format!("{data}checksum={crc:08x}\n");
        let back = parse(file.as_bytes(), "OPTIONS-000004").unwrap();
        assert_eq!(back.merge_operator.unwrap().name(), "UInt64AddOperator");
    }

    /// Every declared option with a value other than its default, in the
    /// DB's section and in a family's, comes back from the written file:
    /// the DB's options as written, the family's own options as written
    /// and its DB-wide ones as the DB's.
    #[test]
    fn every_option_survives_the_options_file() {
        let changed = Options::all_different();
        let dir = tempfile::tempdir().unwrap();
        let fs = default_fs();
        for (number, (db, family)) in [
            (&changed, &Options::default()),
            (&Options::default(), &changed),
        ]
        .into_iter()
        .enumerate()
        {
            let number = number as FileNumber + 1;
            let families = [("f".to_string(), family.clone())];
            write(&fs, dir.path(), number, db, &families).unwrap();
            let data = std::fs::read(options_file_name(dir.path(), number)).unwrap();
            let (db_back, families_back) = parse_families(&data, "OPTIONS").unwrap();
            assert_eq!(db_back.to_pairs(), db.to_pairs());
            let want: Vec<_> = family
                .to_pairs()
                .into_iter()
                .zip(db.to_pairs())
                .map(|((k, own), (_, dbs))| {
                    (
                        k,
                        if crate::db::DB_WIDE_OPTIONS.contains(&k) {
                            dbs
                        } else {
                            own
                        },
                    )
                })
                .collect();
            assert_eq!(families_back.len(), 1);
            assert_eq!(families_back[0].1.to_pairs(), want);
        }
    }
}
