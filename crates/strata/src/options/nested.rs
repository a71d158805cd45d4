//! Nested options: a struct of options that is one option's value, as
//! `name={field=value;...}` in the option string (or one field at a time,
//! `name.field=value`). [`nested_value!`] makes such a struct an
//! [`OptionValue`] from the list of its fields; the list must name every
//! field (it is destructured without `..`, so a field added to the struct
//! and not to the list does not compile).

use super::parse::split_options;
use super::value::OptionValue;
use crate::compaction::fifo::FifoOptions;
use crate::compaction::universal::UniversalOptions;
use crate::error::{Error, Result};

/// Implements [`OptionValue`] for the struct `$t` whose option-string
/// fields are `$field`s, in the order they print; `$unknown(name, field,
/// known_fields)` is the error for a field that is not one of them.
macro_rules! nested_value {
    ($t:ident { $($field:ident),* $(,)? } unknown: $unknown:expr) => {
        impl OptionValue for $t {
            fn set_from_str(&mut self, name: &str, v: &str) -> Result<()> {
                let inner = v.trim().trim_start_matches('{').trim_end_matches('}');
                for (k, val) in split_options(inner)? {
                    self.set_field(name, &k, &val)?;
                }
                Ok(())
            }

            fn to_option_string(&self) -> String {
                let $t { $($field),* } = self;
                let pairs = [$(format!(
                    "{}={}",
                    stringify!($field),
                    $field.to_option_string()
                )),*];
                format!("{{{}}}", pairs.join(";"))
            }

            fn set_field(&mut self, name: &str, field: &str, v: &str) -> Result<()> {
                let full = format!("{name}.{field}");
                match field.trim() {
                    $(stringify!($field) => self.$field.set_from_str(&full, v),)*
                    other => Err($unknown(name, other, &[$(stringify!($field)),*])),
                }
            }

            #[cfg(test)]
            fn different(&self) -> Self {
                $t { $($field: self.$field.different()),* }
            }
        }
    };
}

nested_value! {
    UniversalOptions {
        size_ratio,
        min_merge_width,
        max_merge_width,
        max_size_amplification_percent,
        stop_style,
        allow_trivial_move,
        compression_size_percent,
    }
    unknown: |name, other, _: &[&str]| Error::InvalidArgument(format!(
        "unknown {name} option '{other}'"
    ))
}

// RocksDB's other FIFO knobs (`age_for_warm`, ...) are features this
// build lacks, so an unknown field is `NotSupported`.
nested_value! {
    FifoOptions { max_table_files_size, allow_compaction }
    unknown: |name, other, known: &[&str]| Error::NotSupported(format!(
        "{name}.{other} is not implemented (only {})",
        known.join(" and ")
    ))
}
