//! How an option's value reads from and prints to the option string:
//! [`OptionValue`], implemented once per type an option has.

use std::str::FromStr;
use std::sync::Arc;

use super::enums::{
    CompactionPri, CompactionStyle, CpuPriority, DataBlockIndexType, PrepopulateBlobCache,
};
use crate::compaction::universal::StopStyle;
use crate::error::{Error, Result};
use crate::merge::MergeOperator;
use crate::sstable::CompressionType;
use crate::wal::WalRecoveryMode;

/// A type an option's value has, as text in RocksDB's option-string syntax.
pub(crate) trait OptionValue: Sized {
    /// Sets the value from `v`, the trimmed text of option `name` (which
    /// errors name). A nested option changes only the fields `v` names.
    ///
    /// # Errors
    /// `InvalidArgument` for a malformed value, `NotSupported` for one of a
    /// feature this build lacks.
    fn set_from_str(&mut self, name: &str, v: &str) -> Result<()>;

    /// The value as text that [`set_from_str`](Self::set_from_str) reads
    /// back.
    fn to_option_string(&self) -> String;

    /// Sets `field` of nested option `name` from `v` (the option string's
    /// `name.field=v`). A value without fields has none to set.
    ///
    /// # Errors
    /// `InvalidArgument` naming `name.field`, for a value without fields.
    fn set_field(&mut self, name: &str, field: &str, _v: &str) -> Result<()> {
        Err(Error::InvalidArgument(format!(
            "unknown option '{name}.{field}'"
        )))
    }

    /// A value other than `self`, for tests that carry every option
    /// through the option string.
    #[cfg(test)]
    fn different(&self) -> Self;
}

/// `true`/`1` or `false`/`0`.
pub(crate) fn parse_bool(name: &str, v: &str) -> Result<bool> {
    match v {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        _ => Err(Error::InvalidArgument(format!(
            "{name}: expected true or false, got '{v}'"
        ))),
    }
}

/// A number, surrounding spaces ignored.
pub(crate) fn parse_num<T: FromStr>(name: &str, v: &str) -> Result<T> {
    v.trim()
        .parse()
        .map_err(|_| Error::InvalidArgument(format!("{name}: cannot parse '{v}' as a number")))
}

/// Booleans and numbers: text as Rust prints it, read by `$parse`.
macro_rules! plain_value {
    ($($t:ty: $parse:ident, |$x:ident| $different:expr;)*) => {
        $(
            impl OptionValue for $t {
                fn set_from_str(&mut self, name: &str, v: &str) -> Result<()> {
                    *self = $parse(name, v)?;
                    Ok(())
                }
                fn to_option_string(&self) -> String {
                    self.to_string()
                }
                #[cfg(test)]
                fn different(&self) -> Self {
                    let $x = *self;
                    $different
                }
            }
        )*
    };
}

plain_value! {
    bool: parse_bool, |x| !x;
    usize: parse_num, |x| x ^ 1;
    u64: parse_num, |x| x ^ 1;
    u32: parse_num, |x| x ^ 1;
    i32: parse_num, |x| x ^ 1;
    f64: parse_num, |x| x + 0.5;
}

/// Enums: RocksDB's name of the value (`name()`) out, and whatever the
/// type's `FromStr` accepts in. `different` swaps the two values given.
macro_rules! named_value {
    ($($t:ty: $a:expr, $b:expr;)*) => {
        $(
            impl OptionValue for $t {
                fn set_from_str(&mut self, _name: &str, v: &str) -> Result<()> {
                    *self = v.parse()?;
                    Ok(())
                }
                fn to_option_string(&self) -> String {
                    self.name().to_string()
                }
                #[cfg(test)]
                fn different(&self) -> Self {
                    if *self == $a {
                        $b
                    } else {
                        $a
                    }
                }
            }
        )*
    };
}

named_value! {
    CompactionStyle: CompactionStyle::Level, CompactionStyle::Universal;
    CompactionPri: CompactionPri::MinOverlappingRatio, CompactionPri::ByCompensatedSize;
    PrepopulateBlobCache: PrepopulateBlobCache::Disable, PrepopulateBlobCache::FlushOnly;
    CompressionType: CompressionType::Snappy, CompressionType::None;
    WalRecoveryMode:
        WalRecoveryMode::PointInTimeRecovery,
        WalRecoveryMode::AbsoluteConsistency;
    StopStyle: StopStyle::TotalSize, StopStyle::SimilarSize;
    CpuPriority: CpuPriority::Low, CpuPriority::Normal;
    DataBlockIndexType: DataBlockIndexType::BinarySearch, DataBlockIndexType::BinaryAndHash;
}

/// A list of integers, colon-separated (`1:1:2:2`); empty pieces are
/// skipped.
impl OptionValue for Vec<i32> {
    fn set_from_str(&mut self, name: &str, v: &str) -> Result<()> {
        *self = v
            .split(':')
            .filter(|x| !x.trim().is_empty())
            .map(|x| parse_num(name, x))
            .collect::<Result<_>>()?;
        Ok(())
    }
    fn to_option_string(&self) -> String {
        self.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(":")
    }
    #[cfg(test)]
    fn different(&self) -> Self {
        let mut v = self.clone();
        v.push(2);
        v
    }
}

/// Compression types by level, colon-separated names as RocksDB writes
/// `compression_per_level` (`kNoCompression:kSnappyCompression`); empty
/// pieces are skipped.
impl OptionValue for Vec<CompressionType> {
    fn set_from_str(&mut self, _name: &str, v: &str) -> Result<()> {
        *self = v
            .split(':')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(str::parse::<CompressionType>)
            .collect::<Result<_>>()?;
        Ok(())
    }
    fn to_option_string(&self) -> String {
        self.iter().map(|c| c.name()).collect::<Vec<_>>().join(":")
    }
    #[cfg(test)]
    fn different(&self) -> Self {
        let mut v = self.clone();
        v.push(if v.last() == Some(&CompressionType::None) {
            CompressionType::Snappy
        } else {
            CompressionType::None
        });
        v
    }
}

/// The merge operator: `nullptr` (or empty) for none, else a built-in by
/// name; printed as the operator's own name.
impl OptionValue for Option<Arc<dyn MergeOperator>> {
    fn set_from_str(&mut self, _name: &str, v: &str) -> Result<()> {
        *self = parse_merge_operator(v)?;
        Ok(())
    }
    fn to_option_string(&self) -> String {
        self.as_ref()
            .map_or_else(|| "nullptr".to_string(), |m| m.name().to_string())
    }
    #[cfg(test)]
    fn different(&self) -> Self {
        match self {
            None => crate::merge::builtin("uint64add"),
            Some(_) => None,
        }
    }
}

/// The `merge_operator` option's value: `nullptr` (or empty) for none, a
/// built-in by name, else `NotSupported` naming it.
fn parse_merge_operator(v: &str) -> Result<Option<Arc<dyn MergeOperator>>> {
    if v.is_empty() || v == "nullptr" {
        return Ok(None);
    }
    crate::merge::builtin(v).map(Some).ok_or_else(|| {
        Error::NotSupported(format!(
            "merge_operator '{v}' is not a built-in merge operator (built in: {}); \
             set Options::merge_operator to the operator in code",
            crate::merge::BUILTIN_NAMES.join(", ")
        ))
    })
}
