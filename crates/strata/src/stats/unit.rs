//! The unit a ticker or histogram counts in.

/// What one unit of a ticker or histogram value means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unit {
    /// A number of events or items.
    Count,
    /// Bytes.
    Bytes,
    /// Microseconds.
    Micros,
    /// Milliseconds.
    Millis,
    /// Nanoseconds.
    Nanos,
}

impl Unit {
    /// Short lowercase name (`count`, `bytes`, `micros`, `millis`, `nanos`).
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Count => "count",
            Unit::Bytes => "bytes",
            Unit::Micros => "micros",
            Unit::Millis => "millis",
            Unit::Nanos => "nanos",
        }
    }
}

/// Defines a fieldless enum whose variants carry a RocksDB statistic name and
/// a unit, with `ALL` (declaration order), `name()`, `unit()`,
/// `description()` (the doc comment), `is_recorded()`, `from_name()` and
/// `index()`.
macro_rules! stat_names {
    (
        $(#[$meta:meta])*
        pub enum $ty:ident {
            $( $(#[doc = $doc:literal])* $var:ident = $name:literal [$unit:ident], )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum $ty {
            $( $(#[doc = $doc])* #[doc = concat!("\n\nName: `", $name, "`.")] $var, )*
        }

        impl $ty {
            /// Every variant, in RocksDB's dump order.
            pub const ALL: &'static [$ty] = &[ $( $ty::$var, )* ];

            /// Number of variants.
            pub const COUNT: usize = Self::ALL.len();

            /// RocksDB's name for this statistic.
            pub fn name(self) -> &'static str {
                match self { $( $ty::$var => $name, )* }
            }

            /// What adds to this statistic in Strata (its doc comment, one
            /// line); "Stays 0" / "Stays empty" marks one Strata never records.
            pub fn description(self) -> &'static str {
                match self { $( $ty::$var => concat!($($doc, " ",)* ""), )* }
            }

            /// True if Strata records this statistic; false for those kept
            /// only so the dump has RocksDB's shape (their description says
            /// they stay 0 or empty, and why).
            pub fn is_recorded(self) -> bool {
                let d = self.description().to_ascii_lowercase();
                !(d.contains("stays 0") || d.contains("stays empty"))
            }

            /// The unit the values are counted in.
            pub fn unit(self) -> $crate::stats::Unit {
                match self { $( $ty::$var => $crate::stats::Unit::$unit, )* }
            }

            /// Position in [`Self::ALL`] (dense, usable as an array index).
            pub fn index(self) -> usize {
                self as usize
            }

            /// Looks a statistic up by its RocksDB name.
            pub fn from_name(name: &str) -> Option<$ty> {
                Self::ALL.iter().copied().find(|v| v.name() == name)
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

pub(crate) use stat_names;
