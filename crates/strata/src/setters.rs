//! Builder-style setters for the option structs.
//!
//! The option structs ([`Options`](crate::Options),
//! [`ReadOptions`](crate::ReadOptions), [`WriteOptions`](crate::WriteOptions),
//! [`UniversalOptions`](crate::UniversalOptions),
//! [`FifoOptions`](crate::FifoOptions)) are `#[non_exhaustive]`: a new option
//! is a new field, and code outside this crate cannot name every field in a
//! struct literal, so adding one breaks no user. Outside the crate they are
//! built from their defaults with one setter per field, each named as its
//! field and taking its type:
//!
//! ```
//! let opts = strata::Options::default()
//!     .write_buffer_size(32 << 20)
//!     .bloom_bits_per_key(10.0);
//! assert_eq!(opts.write_buffer_size, 32 << 20);
//! ```
//!
//! or field by field on a mutable value (`opts.write_buffer_size = ...`).
//! A struct literal, even one ending in `..Default::default()`, does not
//! compile outside the crate:
//!
//! ```compile_fail,E0639
//! let opts = strata::Options {
//!     write_buffer_size: 32 << 20,
//!     ..Default::default()
//! };
//! ```
//!
//! [`with_setters!`] declares such a struct and its setters from one field
//! list, so a field cannot be added without its setter. `Options` is
//! declared through `declare_options!` (`options/declare.rs`), which calls
//! [`with_setters!`] and also generates each option's default, its
//! option-string parsing and printing, and its scope.

/// Declares a struct whose fields are all public and, for each field, a
/// setter of the same name that takes the field's type and returns the
/// struct (builder style). Attributes (derives, `#[non_exhaustive]`, doc
/// comments) pass through to the struct and its fields.
macro_rules! with_setters {
    (
        $(#[$struct_meta:meta])*
        pub struct $name:ident {
            $(
                $(#[$field_meta:meta])*
                pub $field:ident : $ty:ty
            ),* $(,)?
        }
    ) => {
        $(#[$struct_meta])*
        pub struct $name {
            $(
                $(#[$field_meta])*
                pub $field: $ty,
            )*
        }

        impl $name {
            $(
                #[doc = concat!(
                    "Sets the `",
                    stringify!($field),
                    "` field (documented there) and returns the options \
                     (builder style)."
                )]
                #[must_use]
                pub fn $field(mut self, value: $ty) -> Self {
                    self.$field = value;
                    self
                }
            )*
        }
    };
}

pub(crate) use with_setters;
