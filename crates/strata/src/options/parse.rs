//! The option string (RocksDB's `name=value;name={nested=value}` syntax):
//! [`Options::set`] for one option, `FromStr` and `Display` for all of them.
//! Which names exist and how each value reads and prints come from the
//! declaration (`list.rs`) and [`OptionValue`](super::value::OptionValue);
//! this file adds what is not an option of its own: dotted names of nested
//! fields, `block_based_table_factory`, and the names of RocksDB features
//! this build lacks.

use std::fmt;
use std::str::FromStr;

use super::value::parse_num;
use super::Options;
use crate::error::{Error, Result};

/// Option names of RocksDB features this build does not implement.
const NOT_IMPLEMENTED: &[&str] = &["periodic_compaction_seconds"];

impl Options {
    /// Sets one option by its RocksDB name from its string value.
    ///
    /// # Errors
    /// `InvalidArgument` for an unknown name or a malformed value;
    /// `NotSupported` for an option of a feature this build lacks.
    pub fn set(&mut self, name: &str, value: &str) -> Result<()> {
        let v = value.trim();
        let n = name.trim();
        if self.set_declared(n, v)? {
            return Ok(());
        }
        if let Some((outer, field)) = n.split_once('.') {
            if self.set_declared_field(outer, field, v)? {
                return Ok(());
            }
        }
        match n {
            "block_based_table_factory" => self.set_table_options(v),
            n if NOT_IMPLEMENTED.contains(&n) => Err(Error::NotSupported(format!(
                "option '{n}' belongs to a feature not implemented in this build"
            ))),
            n => Err(Error::InvalidArgument(format!("unknown option '{n}'"))),
        }
    }

    /// Parses RocksDB's nested `block_based_table_factory={...}` value.
    fn set_table_options(&mut self, v: &str) -> Result<()> {
        let inner = v.trim().trim_start_matches('{').trim_end_matches('}');
        for (k, val) in split_options(inner)? {
            match k.as_str() {
                "filter_policy" => {
                    // bloomfilter:BITS:USE_BLOCK_BASED  or  nullptr
                    if val == "nullptr" || val.is_empty() {
                        self.bloom_bits_per_key = 0.0;
                    } else {
                        let bits = val
                            .strip_prefix("bloomfilter:")
                            .and_then(|r| r.split(':').next())
                            .ok_or_else(|| {
                                Error::InvalidArgument(format!(
                                    "filter_policy: expected bloomfilter:BITS:false, got '{val}'"
                                ))
                            })?;
                        self.bloom_bits_per_key = parse_num("filter_policy", bits)?;
                    }
                }
                "block_size"
                | "block_restart_interval"
                | "data_block_index_type"
                | "data_block_hash_table_util_ratio"
                | "enable_index_compression"
                | "max_auto_readahead_size"
                | "initial_auto_readahead_size"
                | "num_file_reads_for_auto_readahead" => self.set(&k, &val)?,
                "block_cache" => self.block_cache_size = parse_num("block_cache", &val)?,
                other => {
                    return Err(Error::InvalidArgument(format!(
                        "unknown block_based_table_factory option '{other}'"
                    )))
                }
            }
        }
        Ok(())
    }
}

/// Splits `a=1;b={x=1;y=2};c=3` into pairs, keeping braces nested.
pub(super) fn split_options(s: &str) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let bytes = s.as_bytes();
    let mut push = |piece: &str| -> Result<()> {
        let piece = piece.trim();
        if piece.is_empty() {
            return Ok(());
        }
        let (k, v) = piece.split_once('=').ok_or_else(|| {
            Error::InvalidArgument(format!("option '{piece}' has no '=' (expected name=value)"))
        })?;
        out.push((k.trim().to_string(), v.trim().to_string()));
        Ok(())
    };
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => depth -= 1,
            b';' if depth == 0 => {
                push(&s[start..i])?;
                start = i + 1;
            }
            _ => {}
        }
        if depth < 0 {
            return Err(Error::InvalidArgument(format!("unbalanced '}}' in '{s}'")));
        }
    }
    if depth != 0 {
        return Err(Error::InvalidArgument(format!("unbalanced '{{' in '{s}'")));
    }
    push(&s[start..])?;
    Ok(out)
}

impl FromStr for Options {
    type Err = Error;
    /// Parses RocksDB's option-string syntax on top of the defaults.
    fn from_str(s: &str) -> Result<Self> {
        let mut o = Options::default();
        for (k, v) in split_options(s)? {
            o.set(&k, &v)?;
        }
        Ok(o)
    }
}

impl fmt::Display for Options {
    /// Prints every option as `name=value;` pairs, one string that
    /// [`Options::from_str`] reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pairs = self.to_pairs();
        let s: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        write!(f, "{}", s.join(";"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::CompactionStyle;
    use crate::sstable::CompressionType;

    #[test]
    fn string_round_trip() {
        let o: Options = "write_buffer_size=65536;max_write_buffer_number=4;compression=kNoCompression;bloom_bits_per_key=10"
            .parse()
            .unwrap();
        assert_eq!(o.write_buffer_size, 65536);
        assert_eq!(o.max_write_buffer_number, 4);
        assert_eq!(o.compression, CompressionType::None);
        let back: Options = o.to_string().parse().unwrap();
        assert_eq!(back.to_string(), o.to_string());
    }

    #[test]
    fn nested_table_options() {
        let o: Options =
            "block_based_table_factory={block_size=8192;filter_policy=bloomfilter:10:false;enable_index_compression=false}"
                .parse()
                .unwrap();
        assert_eq!(o.block_size, 8192);
        assert_eq!(o.bloom_bits_per_key, 10.0);
        assert!(!o.enable_index_compression);
        assert!(Options::default().enable_index_compression);
        let o: Options = "block_based_table_factory={data_block_index_type=kDataBlockBinaryAndHash;data_block_hash_table_util_ratio=0.5}"
            .parse()
            .unwrap();
        assert_eq!(
            o.data_block_index_type,
            crate::options::DataBlockIndexType::BinaryAndHash
        );
        assert_eq!(o.data_block_hash_table_util_ratio, 0.5);
        assert_eq!(
            Options::default().data_block_index_type,
            crate::options::DataBlockIndexType::BinarySearch
        );
        let e = "data_block_index_type=kDataBlockHash"
            .parse::<Options>()
            .unwrap_err();
        assert!(e.to_string().contains("data_block_index_type"), "{e}");
        for bad in ["0", "-1", "inf"] {
            let o: Options = format!("data_block_hash_table_util_ratio={bad}")
                .parse()
                .unwrap();
            let e = o.validate().unwrap_err();
            assert!(
                e.to_string().contains("data_block_hash_table_util_ratio"),
                "{e}"
            );
        }
    }

    #[test]
    fn unknown_and_unimplemented_are_named() {
        let e = "no_such_option=1".parse::<Options>().unwrap_err();
        assert!(e.to_string().contains("no_such_option"), "{e}");
        let e = "blob_garbage_collection_age_cutoff=x"
            .parse::<Options>()
            .unwrap_err();
        assert!(e.to_string().contains("blob_garbage_collection_age_cutoff"));
        let e = "compaction_pri=kRoundRobin".parse::<Options>().unwrap_err();
        assert!(matches!(e, Error::NotSupported(_)));
        let e = "compaction_options_fifo={age_for_warm=1}"
            .parse::<Options>()
            .unwrap_err();
        assert!(matches!(e, Error::NotSupported(_)), "{e}");
        let o: Options = "compaction_style=kCompactionStyleFIFO;compaction_options_fifo={max_table_files_size=1000;allow_compaction=true}"
            .parse()
            .unwrap();
        assert_eq!(o.compaction_style, CompactionStyle::Fifo);
        assert_eq!(o.compaction_options_fifo.max_table_files_size, 1000);
        assert!(o.compaction_options_fifo.allow_compaction);
        // And back through the OPTIONS-file text.
        let again: Options = o.to_string().parse().unwrap();
        assert_eq!(again.compaction_options_fifo, o.compaction_options_fifo);
        let e = "write_buffer_size=abc".parse::<Options>().unwrap_err();
        assert!(e.to_string().contains("write_buffer_size"));
        let o: Options = "compaction_style=kCompactionStyleUniversal;compaction_options_universal={size_ratio=5;max_size_amplification_percent=150};compaction_options_universal.min_merge_width=3"
            .parse()
            .unwrap();
        assert_eq!(o.compaction_style, CompactionStyle::Universal);
        assert_eq!(o.compaction_options_universal.size_ratio, 5);
        assert_eq!(
            o.compaction_options_universal
                .max_size_amplification_percent,
            150
        );
        assert_eq!(o.compaction_options_universal.min_merge_width, 3);
        let back: Options = o.to_string().parse().unwrap();
        assert_eq!(back.to_string(), o.to_string());
        let e = "compaction_options_universal={bogus=1}"
            .parse::<Options>()
            .unwrap_err();
        assert!(e.to_string().contains("bogus"), "{e}");
    }

    #[test]
    fn merge_operator_by_name() {
        let o: Options = "merge_operator=uint64add".parse().unwrap();
        assert_eq!(
            o.merge_operator.as_ref().unwrap().name(),
            "UInt64AddOperator"
        );
        assert!(o.to_string().contains("merge_operator=UInt64AddOperator"));
        let back: Options = o.to_string().parse().unwrap();
        assert_eq!(back.to_string(), o.to_string());
        assert!(Options::default()
            .to_string()
            .contains("merge_operator=nullptr"));
        let none: Options = "merge_operator=nullptr".parse().unwrap();
        assert!(none.merge_operator.is_none());
        let e = "merge_operator=sortlist".parse::<Options>().unwrap_err();
        assert!(matches!(e, Error::NotSupported(_)), "{e}");
        assert!(e.to_string().contains("'sortlist'"), "{e}");
    }
}
