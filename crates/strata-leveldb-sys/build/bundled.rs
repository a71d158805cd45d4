//! LevelDB 1.22 and Snappy 1.1.7 compiled from the sources the `leveldb-sys`
//! crate ships, with `cc`, as their cmake release builds would compile them
//! (`-O3 -DNDEBUG`, C++11), without cmake: the headers cmake would generate
//! (LevelDB's `port/port_config.h`, Snappy's `config.h` and
//! `snappy-stubs-public.h`) are written into `OUT_DIR` from their templates.
//!
//! Snappy's namespace is renamed (`-Dsnappy=strata_leveldb_snappy`) and the
//! archives are named `strata_leveldb` and `strata_snappy`, so a binary that
//! also links RocksDB's own Snappy (the `rocksdb` feature) gets no clash.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::config_h::configure;

/// The `leveldb-sys` release whose sources are compiled (pinned with `=` in
/// Cargo.toml).
pub const LEVELDB_SYS: &str = "2.0.9";
/// The LevelDB release it ships.
pub const LEVELDB: &str = "1.22";
/// The Snappy release it ships.
pub const SNAPPY: &str = "1.1.7";
/// The optimisation level of LevelDB's cmake release build.
const OPT_LEVEL: u32 = 3;
/// What Snappy's namespace is renamed to.
const SNAPPY_NAMESPACE: &str = "strata_leveldb_snappy";

/// LevelDB's library sources: the `leveldb` target of its CMakeLists.txt on
/// POSIX.
const LEVELDB_FILES: &[&str] = &[
    "db/builder.cc",
    "db/c.cc",
    "db/db_impl.cc",
    "db/db_iter.cc",
    "db/dbformat.cc",
    "db/dumpfile.cc",
    "db/filename.cc",
    "db/log_reader.cc",
    "db/log_writer.cc",
    "db/memtable.cc",
    "db/repair.cc",
    "db/table_cache.cc",
    "db/version_edit.cc",
    "db/version_set.cc",
    "db/write_batch.cc",
    "table/block_builder.cc",
    "table/block.cc",
    "table/filter_block.cc",
    "table/format.cc",
    "table/iterator.cc",
    "table/merger.cc",
    "table/table_builder.cc",
    "table/table.cc",
    "table/two_level_iterator.cc",
    "util/arena.cc",
    "util/bloom.cc",
    "util/cache.cc",
    "util/coding.cc",
    "util/comparator.cc",
    "util/crc32c.cc",
    "util/env.cc",
    "util/filter_policy.cc",
    "util/hash.cc",
    "util/logging.cc",
    "util/options.cc",
    "util/status.cc",
    "util/env_posix.cc",
    "helpers/memenv/memenv.cc",
];

/// Snappy's library sources that LevelDB uses (its C++ API; not `snappy-c`).
const SNAPPY_FILES: &[&str] = &[
    "snappy.cc",
    "snappy-sinksource.cc",
    "snappy-stubs-internal.cc",
];

/// Where the `leveldb-sys` sources are.
pub struct Sources {
    /// `.../leveldb-sys-2.0.9/deps/leveldb-1.22`.
    pub leveldb: PathBuf,
    /// `.../leveldb-sys-2.0.9/deps/snappy-1.1.7`.
    pub snappy: PathBuf,
}

impl Sources {
    /// Finds the unpacked `leveldb-sys` crate in cargo's registry
    /// (`$CARGO_HOME/registry/src/<index>/leveldb-sys-2.0.9`), where cargo
    /// put it before running this script (it is a dependency of this crate).
    pub fn locate() -> Result<Self, String> {
        let home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
            .ok_or("neither CARGO_HOME nor HOME is set: cannot find cargo's registry")?;
        let registry = home.join("registry").join("src");
        let crate_dir = format!("leveldb-sys-{LEVELDB_SYS}");
        let mut indexes: Vec<PathBuf> = std::fs::read_dir(&registry)
            .map_err(|e| format!("{}: {e}", registry.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        indexes.sort();
        for index in indexes {
            let deps = index.join(&crate_dir).join("deps");
            let src = Self {
                leveldb: deps.join(format!("leveldb-{LEVELDB}")),
                snappy: deps.join(format!("snappy-{SNAPPY}")),
            };
            if src.leveldb.join("include/leveldb/c.h").exists()
                && src.snappy.join("snappy.cc").exists()
            {
                println!("cargo:rerun-if-changed={}", src.leveldb.display());
                return Ok(src);
            }
        }
        Err(format!(
            "LevelDB's sources (the {crate_dir} crate, a dependency of strata-leveldb-sys) \
             were not found under {}/*/: build with cargo's registry in CARGO_HOME, or set \
             LEVELDB_LIB_DIR to link a system LevelDB instead",
            registry.display()
        ))
    }
}

/// The bundled build, for the engine's version line: `release build from
/// leveldb-sys 2.0.9's sources, -O3 -DNDEBUG, assertions disabled, Snappy 1.1.7`.
pub fn describe() -> String {
    format!(
        "release build from leveldb-sys {LEVELDB_SYS}'s sources, -O{OPT_LEVEL} -DNDEBUG, \
         assertions disabled, Snappy {SNAPPY}"
    )
}

fn out_dir() -> PathBuf {
    PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"))
}

/// The settings LevelDB's and Snappy's cmake release builds share.
pub fn release_build() -> cc::Build {
    let mut b = cc::Build::new();
    b.cpp(true)
        .std("c++11")
        .opt_level(OPT_LEVEL)
        .debug(false)
        .define("NDEBUG", None)
        .define("snappy", SNAPPY_NAMESPACE)
        // Third-party code: its warnings are not this build's to act on.
        .warnings(false)
        .cargo_warnings(false)
        .cargo_metadata(false);
    b
}

/// Writes Snappy's `config.h` and `snappy-stubs-public.h` into
/// `OUT_DIR/snappy` (what its CMakeLists.txt would check and configure on
/// Linux with glibc) and returns that directory.
fn snappy_headers(src: &Sources) -> PathBuf {
    let dir = out_dir().join("snappy");
    std::fs::create_dir_all(&dir).expect("create OUT_DIR/snappy");
    let big = std::env::var("CARGO_CFG_TARGET_ENDIAN").as_deref() == Ok("big");
    let (major, rest) = SNAPPY.split_once('.').expect("x.y.z");
    let (minor, patch) = rest.split_once('.').expect("x.y.z");
    let v: BTreeMap<&str, &str> = [
        ("HAVE_BUILTIN_CTZ", "1"),
        ("HAVE_BUILTIN_EXPECT", "1"),
        ("HAVE_BYTESWAP_H", "1"),
        ("HAVE_FUNC_MMAP", "1"),
        ("HAVE_FUNC_SYSCONF", "1"),
        ("HAVE_GFLAGS", "0"),
        ("HAVE_GTEST", "0"),
        ("HAVE_LIBLZO2", "0"),
        ("HAVE_LIBZ", "0"),
        ("HAVE_STDDEF_H", "1"),
        ("HAVE_STDINT_H", "1"),
        ("HAVE_SYS_ENDIAN_H", "0"),
        ("HAVE_SYS_MMAN_H", "1"),
        ("HAVE_SYS_RESOURCE_H", "1"),
        ("HAVE_SYS_TIME_H", "1"),
        ("HAVE_SYS_UIO_H", "1"),
        ("HAVE_UNISTD_H", "1"),
        ("HAVE_WINDOWS_H", "0"),
        ("SNAPPY_IS_BIG_ENDIAN", if big { "1" } else { "0" }),
        ("HAVE_STDINT_H_01", "1"),
        ("HAVE_STDDEF_H_01", "1"),
        ("HAVE_SYS_UIO_H_01", "1"),
        ("SNAPPY_MAJOR", major),
        ("SNAPPY_MINOR", minor),
        ("SNAPPY_PATCHLEVEL", patch),
    ]
    .into_iter()
    .collect();
    for (template, out) in [
        ("cmake/config.h.in", "config.h"),
        ("snappy-stubs-public.h.in", "snappy-stubs-public.h"),
    ] {
        let text = std::fs::read_to_string(src.snappy.join(template))
            .unwrap_or_else(|e| panic!("{}: {e}", src.snappy.join(template).display()));
        let text = configure(&text, &v).unwrap_or_else(|e| panic!("Snappy's {template}: {e}"));
        std::fs::write(dir.join(out), text).expect("write Snappy's generated header");
    }
    dir
}

/// Writes LevelDB's `port/port_config.h` under `dir/include` (with or
/// without Snappy) and returns that include directory.
pub fn port_config(src: &Sources, dir: &Path, snappy: bool) -> PathBuf {
    let include = dir.join("include");
    std::fs::create_dir_all(include.join("port")).expect("create include/port");
    let big = std::env::var("CARGO_CFG_TARGET_ENDIAN").as_deref() == Ok("big");
    let v: BTreeMap<&str, &str> = [
        ("HAVE_FDATASYNC", "1"),
        ("HAVE_FULLFSYNC", "0"),
        // LevelDB's portable CRC32C, as a cmake build without the crc32c
        // library has.
        ("HAVE_CRC32C", "0"),
        ("HAVE_SNAPPY", if snappy { "1" } else { "0" }),
        ("LEVELDB_IS_BIG_ENDIAN", if big { "1" } else { "0" }),
    ]
    .into_iter()
    .collect();
    let template = src.leveldb.join("port/port_config.h.in");
    let text = std::fs::read_to_string(&template)
        .unwrap_or_else(|e| panic!("{}: {e}", template.display()));
    let text = configure(&text, &v).unwrap_or_else(|e| panic!("LevelDB's port_config.h.in: {e}"));
    std::fs::write(include.join("port/port_config.h"), text).expect("write port_config.h");
    include
}

/// LevelDB's library as its cmake build compiles it, into
/// `out/lib<name>.a`; with Snappy when `snappy` names its headers' directory.
pub fn compile_leveldb(src: &Sources, out: &Path, name: &str, snappy: Option<&Path>) {
    let include = port_config(src, out, snappy.is_some());
    let mut b = release_build();
    b.out_dir(out)
        .include(&include)
        .include(&src.leveldb)
        .include(src.leveldb.join("include"))
        .define("LEVELDB_PLATFORM_POSIX", "1")
        .define("LEVELDB_HAS_PORT_CONFIG_H", "1")
        .define("LEVELDB_COMPILE_LIBRARY", None);
    if let Some(dir) = snappy {
        b.include(dir).include(&src.snappy);
    }
    b.files(LEVELDB_FILES.iter().map(|f| src.leveldb.join(f)));
    b.compile(name);
}

/// Compiles Snappy and LevelDB with it, links both (and the C++ standard
/// library) into this crate.
pub fn build(src: &Sources) {
    let out = out_dir();
    let snappy_gen = snappy_headers(src);
    let mut s = release_build();
    s.include(&snappy_gen)
        .include(&src.snappy)
        .define("HAVE_CONFIG_H", None)
        .files(SNAPPY_FILES.iter().map(|f| src.snappy.join(f)));
    s.compile("strata_snappy");
    compile_leveldb(src, &out, "strata_leveldb", Some(&snappy_gen));

    println!("cargo:rustc-link-search=native={}", out.display());
    // LevelDB first: it needs Snappy's symbols.
    println!("cargo:rustc-link-lib=static=strata_leveldb");
    println!("cargo:rustc-link-lib=static=strata_snappy");
    println!("cargo:rustc-link-lib=stdc++");
}
