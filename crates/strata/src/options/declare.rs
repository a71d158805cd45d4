//! [`declare_options!`]: the one list of the engine's options, from which
//! every place that names an option is generated.
//!
//! Each option is one entry: its doc comment, then
//! `name: Type = default, Scope;`, where `name` is the field, the setter and
//! RocksDB's option name, and `Scope` an [`OptionScope`] variant (`DbWide`
//! or `PerFamily`). From the entries the macro generates the struct's
//! fields and setters (through `with_setters!`), its `Default`, the
//! option-string arms of `Options::set` and the pairs of `to_pairs` (both
//! through [`OptionValue`](super::value::OptionValue), so each type reads
//! and prints its values in one place) and the list of names with their
//! scopes ([`OptionSpec`]), from which `DB_WIDE_OPTIONS` is taken.
//! Fields that are not in the option string (the file system) follow in a
//! `not_in_option_string { ... }` block: they get a field, a setter and a
//! default only.

/// Whether an option holds one value for the whole DB or one per column
/// family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OptionScope {
    /// One value for the DB (RocksDB's `DBOptions`, plus Strata's one
    /// block cache and one blob cache): every family takes the DB's.
    DbWide,
    /// A column-family option: each family has its own value.
    PerFamily,
}

/// One option of the option string: its RocksDB name and its scope.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OptionSpec {
    /// RocksDB's name, which is also the field's and the setter's.
    pub name: &'static str,
    /// DB-wide or per column family.
    pub scope: OptionScope,
}

/// How many of `specs` have `scope`.
pub(crate) const fn count_in_scope(specs: &[OptionSpec], scope: OptionScope) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < specs.len() {
        if specs[i].scope as u8 == scope as u8 {
            n += 1;
        }
        i += 1;
    }
    n
}

/// The names of the `N` options of `specs` that have `scope`, in order
/// (`N` is [`count_in_scope`]).
pub(crate) const fn names_in_scope<const N: usize>(
    specs: &[OptionSpec],
    scope: OptionScope,
) -> [&'static str; N] {
    let mut out = [""; N];
    let mut j = 0;
    let mut i = 0;
    while i < specs.len() {
        if specs[i].scope as u8 == scope as u8 {
            out[j] = specs[i].name;
            j += 1;
        }
        i += 1;
    }
    out
}

/// Declares an options struct from one entry per option (see the module
/// documentation): the struct with its setters, `Default`, `SPECS`,
/// `to_pairs` and the option-string setters `set_declared` and
/// `set_declared_field` that `Options::set` calls.
macro_rules! declare_options {
    (
        $(#[$struct_meta:meta])*
        pub struct $name:ident {
            $(
                $(#[$doc:meta])*
                $field:ident : $ty:ty = $default:expr, $scope:ident;
            )*
        }
        not_in_option_string {
            $(
                $(#[$xdoc:meta])*
                $xfield:ident : $xty:ty = $xdefault:expr;
            )*
        }
    ) => {
        $crate::setters::with_setters! {
            $(#[$struct_meta])*
            pub struct $name {
                $( $(#[$doc])* pub $field: $ty, )*
                $( $(#[$xdoc])* pub $xfield: $xty, )*
            }
        }

        impl Default for $name {
            fn default() -> Self {
                $name {
                    $( $field: $default, )*
                    $( $xfield: $xdefault, )*
                }
            }
        }

        impl $name {
            /// Every option of the option string, in declaration order: its
            /// name and whether it is DB-wide.
            pub(crate) const SPECS: &'static [$crate::options::declare::OptionSpec] = &[
                $(
                    $crate::options::declare::OptionSpec {
                        name: stringify!($field),
                        scope: $crate::options::declare::OptionScope::$scope,
                    },
                )*
            ];

            /// Every option as (name, value) text, in a fixed order (used by
            /// `Display`, the OPTIONS file and the LOG).
            pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
                use $crate::options::value::OptionValue;
                vec![ $( (stringify!($field), self.$field.to_option_string()), )* ]
            }

            /// Sets the declared option `name` from `v`; `false` when no
            /// option is called `name`.
            pub(super) fn set_declared(&mut self, name: &str, v: &str) -> $crate::error::Result<bool> {
                use $crate::options::value::OptionValue;
                match name {
                    $( stringify!($field) => self.$field.set_from_str(name, v)?, )*
                    _ => return Ok(false),
                }
                Ok(true)
            }

            /// Sets `field` of the declared option `outer` from `v` (the
            /// option string's `outer.field=v`); `false` when no option is
            /// called `outer`.
            pub(super) fn set_declared_field(
                &mut self,
                outer: &str,
                field: &str,
                v: &str,
            ) -> $crate::error::Result<bool> {
                use $crate::options::value::OptionValue;
                match outer {
                    $( stringify!($field) => self.$field.set_field(outer, field, v)?, )*
                    _ => return Ok(false),
                }
                Ok(true)
            }

            /// The options with every option of the option string at a value
            /// other than its default, set field by field (not by name).
            #[cfg(test)]
            pub(crate) fn all_different() -> Self {
                use $crate::options::value::OptionValue;
                let d = Self::default();
                Self {
                    $( $field: d.$field.different(), )*
                    ..d
                }
            }
        }
    };
}

pub(crate) use declare_options;
