//! [`byte_enum!`](byte_enum): the one way an enum stored as a byte on disk
//! is declared. Each variant's byte is written once, as its discriminant;
//! `x as u8` encodes and the generated `from_u8` decodes, so the two
//! directions cannot disagree.

/// Declares a `#[repr(u8)]` enum whose variants all have explicit
/// discriminants (the stored bytes), and `from_u8`, which maps a byte back
/// to its variant (`None` for any other byte). Attributes and doc comments
/// on the enum and its variants are kept as written.
macro_rules! byte_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $(
                $(#[$vmeta:meta])*
                $variant:ident = $byte:literal,
            )+
        }
    ) => {
        $(#[$meta])*
        #[repr(u8)]
        $vis enum $name {
            $(
                $(#[$vmeta])*
                $variant = $byte,
            )+
        }

        impl $name {
            /// Decodes a stored byte: the variant it is the discriminant
            /// of, `None` for any other byte.
            #[inline]
            pub fn from_u8(b: u8) -> Option<Self> {
                match b {
                    $($byte => Some($name::$variant),)+
                    _ => None,
                }
            }
        }
    };
}

pub(crate) use byte_enum;

#[cfg(test)]
mod tests {
    byte_enum! {
        /// A test enum with gaps between its bytes.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        enum Gappy {
            A = 0,
            B = 3,
            C = 200,
        }
    }

    #[test]
    fn from_u8_inverts_as_u8_and_rejects_other_bytes() {
        for v in [Gappy::A, Gappy::B, Gappy::C] {
            assert_eq!(Gappy::from_u8(v as u8), Some(v));
        }
        let known = (0..=u8::MAX).filter(|&b| Gappy::from_u8(b).is_some());
        assert_eq!(known.collect::<Vec<_>>(), [0, 3, 200]);
    }
}
