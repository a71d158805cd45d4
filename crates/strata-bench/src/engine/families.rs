//! Column families in the bench: which family a key lives in, and each
//! family's settings.
//!
//! Two layouts, chosen by flags (`options_map` turns them into settings):
//! - `--num_column_families=N`: db_bench's spread. Families "default" and
//!   `column_family_name_000001` .. `_{N-1}`, all with the same options; key
//!   number `k` lives in family `k % N`.
//! - `--hot_key_fraction=F`: families "hot" and "cold". Key numbers below
//!   `F x --num` live in "hot", the rest in "cold"; `--hot_X` and `--cold_X`
//!   set option X of one family (the others come from `--X`).
//!
//! The key number is read back from the key (`keygen`: its first
//! `min(8, key_size)` bytes, big-endian). Iterators read the default family,
//! as db_bench's do; flush and compact cover every family.

use crate::options_map::OptionSetting;

/// The setting that carries `--num_column_families`.
pub const NUM_COLUMN_FAMILIES: &str = "num_column_families";
/// The setting that carries the hot/cold split: the number of hot keys.
pub const HOT_KEYS: &str = "hot_keys";

/// How keys map to column families.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FamilyLayout {
    /// Everything in "default".
    One,
    /// db_bench's spread over `n` families ("default" first).
    Spread(usize),
    /// Keys below `hot_keys` in "hot", the rest in "cold".
    HotCold {
        /// Key numbers below this are hot.
        hot_keys: u64,
    },
}

/// One family to open: its name and its settings.
#[derive(Debug, Clone)]
pub struct FamilySpec {
    /// The family's name.
    pub name: String,
    /// Its settings: the run's, with its own overrides.
    pub settings: Vec<OptionSetting>,
}

/// The layout the settings ask for, the DB's own settings (the family
/// settings removed), and the families to open besides "default".
///
/// # Errors
/// A family setting whose option the run does not set, or a bad number.
pub fn split(
    settings: &[OptionSetting],
) -> anyhow::Result<(FamilyLayout, Vec<OptionSetting>, Vec<FamilySpec>)> {
    let is_family = |s: &OptionSetting| {
        s.option == NUM_COLUMN_FAMILIES
            || s.option == HOT_KEYS
            || s.option.starts_with("hot_")
            || s.option.starts_with("cold_")
    };
    let base: Vec<OptionSetting> = settings.iter().filter(|s| !is_family(s)).cloned().collect();
    let number = |s: &OptionSetting| -> anyhow::Result<u64> {
        s.value.parse().map_err(|_| {
            anyhow::anyhow!(
                "Invalid argument: flag '--{}' ({}={}) is not a count",
                s.flag,
                s.option,
                s.value
            )
        })
    };
    let mut layout = FamilyLayout::One;
    for s in settings {
        if s.option == NUM_COLUMN_FAMILIES {
            let n = number(s)? as usize;
            if n > 1 {
                layout = FamilyLayout::Spread(n);
            }
        } else if s.option == HOT_KEYS {
            layout = FamilyLayout::HotCold {
                hot_keys: number(s)?,
            };
        }
    }
    let families = match &layout {
        FamilyLayout::One => Vec::new(),
        FamilyLayout::Spread(n) => (1..*n)
            .map(|i| FamilySpec {
                name: format!("column_family_name_{i:06}"),
                settings: base.clone(),
            })
            .collect(),
        FamilyLayout::HotCold { .. } => {
            let mut out = Vec::new();
            for side in ["hot", "cold"] {
                let mut own = base.clone();
                let prefix = format!("{side}_");
                let own_flags = settings
                    .iter()
                    .filter(|s| s.option != HOT_KEYS && s.option.starts_with(&prefix));
                for s in own_flags {
                    let option = &s.option[prefix.len()..];
                    let Some(t) = own.iter_mut().find(|t| t.option == option) else {
                        anyhow::bail!(
                            "Not supported: flag '--{}' names option {option}, which this run does not set",
                            s.flag
                        );
                    };
                    t.value = s.value.clone();
                    t.flag = s.flag;
                    t.given = true;
                }
                out.push(FamilySpec {
                    name: side.to_string(),
                    settings: own,
                });
            }
            out
        }
    };
    Ok((layout, base, families))
}

/// The key number of a key the bench made (`keygen`).
pub fn key_number(key: &[u8]) -> u64 {
    key.iter()
        .take(8)
        .fold(0u64, |n, &b| (n << 8) | u64::from(b))
}

impl FamilyLayout {
    /// The index of `key`'s family: 0 for "default", else 1 + its place in
    /// the list [`split`] returns.
    pub fn family_of(&self, key: &[u8]) -> usize {
        match self {
            FamilyLayout::One => 0,
            FamilyLayout::Spread(n) => (key_number(key) % *n as u64) as usize,
            FamilyLayout::HotCold { hot_keys } => {
                if key_number(key) < *hot_keys {
                    1
                } else {
                    2
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keygen::make_key;
    use crate::options_map::settings_of;

    #[test]
    fn spread_follows_the_key_number_as_db_bench_does() {
        let (layout, base, fams) = split(&settings_of(&["--num_column_families=3"])).unwrap();
        assert_eq!(layout, FamilyLayout::Spread(3));
        assert!(base.iter().all(|s| s.option != NUM_COLUMN_FAMILIES));
        let names: Vec<&str> = fams.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            ["column_family_name_000001", "column_family_name_000002"]
        );
        for k in [0u64, 1, 2, 3, 1000, 1001] {
            assert_eq!(layout.family_of(&make_key(k, 16)), (k % 3) as usize);
        }
        assert_eq!(key_number(&make_key(123_456, 16)), 123_456);
    }

    #[test]
    fn hot_and_cold_families_take_their_own_options() {
        let s = settings_of(&[
            "--num=1000",
            "--hot_key_fraction=0.1",
            "--hot_compaction_style=0",
            "--cold_compaction_style=1",
            "--cold_write_buffer_size=1048576",
            "--write_buffer_size=4194304",
        ]);
        let (layout, base, fams) = split(&s).unwrap();
        assert_eq!(layout, FamilyLayout::HotCold { hot_keys: 100 });
        let get = |v: &[OptionSetting], o: &str| {
            v.iter()
                .find(|s| s.option == o)
                .map(|s| s.value.clone())
                .unwrap()
        };
        assert_eq!(get(&base, "write_buffer_size"), "4194304");
        assert_eq!(fams[0].name, "hot");
        assert_eq!(
            get(&fams[0].settings, "compaction_style"),
            "kCompactionStyleLevel"
        );
        assert_eq!(get(&fams[0].settings, "write_buffer_size"), "4194304");
        assert_eq!(fams[1].name, "cold");
        assert_eq!(
            get(&fams[1].settings, "compaction_style"),
            "kCompactionStyleUniversal"
        );
        assert_eq!(get(&fams[1].settings, "write_buffer_size"), "1048576");
        assert_eq!(layout.family_of(&make_key(99, 16)), 1);
        assert_eq!(layout.family_of(&make_key(100, 16)), 2);
    }
}
