//! LevelDB's own `db_bench` (`db/db_bench.cc` in 1.22), compiled from the
//! same sources as the library, as its cmake release build would, into
//! `OUT_DIR/db_bench`.
//!
//! It links a second build of the library without Snappy: LevelDB 1.22's
//! db_bench has no `--compression` flag and compresses with Snappy whenever
//! the library has it, so the studies' `compression_type=none` (study 2's
//! published setup) could not be run on a Snappy build.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::bundled::{compile_leveldb, port_config, release_build, Sources};

/// The benchmark's sources: the `db_bench` target of LevelDB's
/// CMakeLists.txt.
const DB_BENCH_FILES: &[&str] = &[
    "util/histogram.cc",
    "util/testharness.cc",
    "util/testutil.cc",
    "db/db_bench.cc",
];

/// Builds `db_bench` and returns its path.
pub fn build(src: &Sources) -> PathBuf {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let lib_dir = out.join("db_bench-lib");
    compile_leveldb(src, &lib_dir, "leveldb_nosnappy", None);

    let include = port_config(src, &lib_dir, false);
    let mut b = release_build();
    b.out_dir(out.join("db_bench-main"))
        .include(&include)
        .include(&src.leveldb)
        .include(src.leveldb.join("include"))
        .define("LEVELDB_PLATFORM_POSIX", "1")
        .define("LEVELDB_HAS_PORT_CONFIG_H", "1")
        .files(DB_BENCH_FILES.iter().map(|f| src.leveldb.join(f)));
    let objects = b.compile_intermediates();

    let exe = out.join("db_bench");
    let mut link: Command = b.get_compiler().to_command();
    link.arg("-o")
        .arg(&exe)
        .args(&objects)
        .arg(lib_dir.join("libleveldb_nosnappy.a"))
        .arg("-lpthread");
    run(&mut link, &exe);
    exe
}

fn run(cmd: &mut Command, exe: &Path) {
    let status = cmd
        .status()
        .unwrap_or_else(|e| panic!("linking {}: {cmd:?}: {e}", exe.display()));
    assert!(
        status.success(),
        "linking {} failed: {cmd:?}",
        exe.display()
    );
}
