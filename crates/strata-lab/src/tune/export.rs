//! The chosen configuration, ready to use: a RocksDB OPTIONS file (every
//! option the runs used, in RocksDB's INI sections) and a Strata option
//! string (the options the tuning file and the winner set), both derived
//! from the benchmark flags by `strata_bench::options_map`, the one place
//! flags become engine options.

use std::collections::BTreeMap;

use strata_bench::flags::Flags;
use strata_bench::options_map::{engine_options, OptionSetting};

/// Options of `strata bench`'s column-family layout, which are not engine options.
fn layout_only(s: &OptionSetting) -> bool {
    s.flag == "num_column_families"
        || s.flag.starts_with("hot_")
        || s.flag.starts_with("cold_")
        || s.option == "statistics"
}

/// The engine options of a run with these benchmark flags.
pub(crate) fn settings(flags: &BTreeMap<String, String>) -> anyhow::Result<Vec<OptionSetting>> {
    let args: Vec<String> = flags
        .iter()
        .filter(|(k, _)| k.as_str() != "benchmarks" && k.as_str() != "db")
        .map(|(k, v)| format!("--{k}={v}"))
        .collect();
    let f = Flags::from_args(&args).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(engine_options(&f)
        .into_iter()
        .filter(|s| !layout_only(s))
        .collect())
}

/// `group.leaf=v` as the option-string form `group={leaf=v}`.
fn pair(s: &OptionSetting) -> (String, String) {
    match s.option.split_once('.') {
        Some((g, leaf)) => (g.to_string(), format!("{{{leaf}={}}}", s.value)),
        None => (s.option.to_string(), s.value.clone()),
    }
}

/// The Strata option string of the settings that were given (by the
/// tuning file's flags or the configuration), checked by parsing it back
/// with `strata::Options`.
pub(crate) fn strata_string(settings: &[OptionSetting]) -> anyhow::Result<String> {
    let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut flat: Vec<String> = Vec::new();
    for s in settings.iter().filter(|s| s.given) {
        match s.option.split_once('.') {
            Some((g, leaf)) => groups
                .entry(g.to_string())
                .or_default()
                .push(format!("{leaf}={}", s.value)),
            None => flat.push(format!("{}={}", s.option, s.value)),
        }
    }
    for (g, leaves) in groups {
        flat.push(format!("{g}={{{}}}", leaves.join(";")));
    }
    let text = flat.join(";");
    text.parse::<strata::Options>()
        .map_err(|e| anyhow::anyhow!("the chosen options do not parse as Strata options: {e}"))?;
    Ok(text)
}

/// A RocksDB OPTIONS file with every setting the runs used: DB-wide options
/// under `[DBOptions]`, the rest under `[CFOptions "default"]`, the block
/// table's under `[TableOptions/BlockBasedTable "default"]`. Settings an
/// OPTIONS file cannot hold (a cache's size, a rate limiter) are comments.
pub(crate) fn rocksdb_options_file(settings: &[OptionSetting], header: &[String]) -> String {
    let mut db = Vec::new();
    let mut cf = Vec::new();
    let mut table = Vec::new();
    let mut objects = Vec::new();
    let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for s in settings {
        match s.option {
            "bloom_bits_per_key" => {
                let bits: f64 = s.value.parse().unwrap_or(0.0);
                if bits > 0.0 {
                    table.push(format!("filter_policy=bloomfilter:{}:false", s.value));
                }
            }
            "block_size"
            | "block_restart_interval"
            | "data_block_index_type"
            | "data_block_hash_table_util_ratio"
            | "enable_index_compression" => table.push(format!("{}={}", s.option, s.value)),
            "block_cache_size" | "blob_cache_size" => objects.push(format!(
                "{}={} (an LRU cache of this many bytes, made in code)",
                s.option, s.value
            )),
            o if o.starts_with("rate_limiter_") => {
                objects.push(format!("{o}={} (a rate limiter, made in code)", s.value))
            }
            _ => {
                let (k, v) = pair(s);
                if let Some((g, leaf)) = s.option.split_once('.') {
                    groups
                        .entry(g.to_string())
                        .or_default()
                        .push(format!("{leaf}={}", s.value));
                    continue;
                }
                if strata::DB_WIDE_OPTIONS.contains(&s.option) {
                    db.push(format!("{k}={v}"));
                } else {
                    cf.push(format!("{k}={v}"));
                }
            }
        }
    }
    for (g, leaves) in groups {
        cf.push(format!("{g}={{{}}}", leaves.join(";")));
    }
    let mut out = String::new();
    for h in header {
        out.push_str(&format!("# {h}\n"));
    }
    for o in &objects {
        out.push_str(&format!("# {o}\n"));
    }
    out.push_str("[Version]\n  rocksdb_version=10.4.2\n  options_file_version=1.1\n\n");
    let section = |out: &mut String, name: &str, lines: &[String]| {
        out.push_str(&format!("[{name}]\n"));
        for l in lines {
            out.push_str(&format!("  {l}\n"));
        }
        out.push('\n');
    };
    section(&mut out, "DBOptions", &db);
    section(&mut out, "CFOptions \"default\"", &cf);
    section(&mut out, "TableOptions/BlockBasedTable \"default\"", &table);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(kv: &[(&str, &str)]) -> BTreeMap<String, String> {
        kv.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_options_land_in_their_sections_and_parse_back() {
        let s = settings(&flags(&[
            ("benchmarks", "fillrandom"),
            ("num", "1000"),
            ("write_buffer_size", "33554432"),
            ("max_background_jobs", "4"),
            ("bloom_bits", "10"),
            ("compaction_style", "1"),
            ("universal_size_ratio", "5"),
            ("cache_size", "1048576"),
        ]))
        .unwrap();
        let text = strata_string(&s).unwrap();
        assert!(text.contains("write_buffer_size=33554432"), "{text}");
        assert!(
            text.contains("compaction_options_universal={size_ratio=5}"),
            "{text}"
        );
        assert!(
            !text.contains("max_bytes_for_level_base"),
            "only given options: {text}"
        );
        let o: strata::Options = text.parse().unwrap();
        assert_eq!(o.write_buffer_size, 33554432);
        assert_eq!(o.max_background_jobs, 4);
        let ini = rocksdb_options_file(&s, &["tuned".into()]);
        let at = |needle: &str| {
            ini.find(needle)
                .unwrap_or_else(|| panic!("{needle} missing:\n{ini}"))
        };
        assert!(at("[DBOptions]") < at("max_background_jobs=4"));
        assert!(at("[CFOptions \"default\"]") < at("write_buffer_size=33554432"));
        assert!(at("max_background_jobs=4") < at("[CFOptions \"default\"]"));
        assert!(at("[TableOptions/BlockBasedTable") < at("filter_policy=bloomfilter:10:false"));
        assert!(at("# block_cache_size=1048576") < at("[Version]"));
        assert!(ini.starts_with("# tuned\n"));
    }

    #[test]
    fn a_bad_flag_is_an_error() {
        let e = settings(&flags(&[("write_buffer_size", "lots")]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("write_buffer_size"), "{e}");
        let e = settings(&flags(&[("write_bufer_size", "1")]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("write_bufer_size"), "{e}");
    }
}
