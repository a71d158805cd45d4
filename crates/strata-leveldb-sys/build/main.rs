//! Provides LevelDB's C library for `strata bench --engine=leveldb`:
//!
//! * `LEVELDB_LIB_DIR` set: the system library in that directory
//!   (`libleveldb.so` or `libleveldb.a`), as it is ([`system`]);
//! * otherwise, on the targets where the `leveldb-sys` dependency exists
//!   (Linux on x86_64 and aarch64 with glibc): LevelDB 1.22 and Snappy 1.1.7
//!   compiled from the sources that crate ships, as LevelDB's release build
//!   (`-O3 -DNDEBUG`) ([`bundled`]);
//! * on other targets, a system library in the usual directories, if any.
//!
//! With the `db-bench` feature it also builds LevelDB's own `db_bench`
//! ([`db_bench`]). It tells the crate what it linked through `rustc-env`
//! (`STRATA_LEVELDB_KIND`, `STRATA_LEVELDB_BUILD`, ...) and its dependents
//! through `DEP_STRATA_LEVELDB_KIND` (`bundled`, `system` or `none`).

mod bundled;
mod config_h;
mod db_bench;
mod system;

/// Tells the crate and its dependents what was linked.
fn announce(kind: &str, build: &str) {
    println!("cargo:rustc-env=STRATA_LEVELDB_KIND={kind}");
    println!("cargo:rustc-env=STRATA_LEVELDB_BUILD={build}");
    println!("cargo:kind={kind}");
}

fn main() {
    println!("cargo:rerun-if-env-changed=LEVELDB_LIB_DIR");
    println!("cargo:rerun-if-env-changed=CARGO_HOME");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let has_sources = os == "linux" && env == "gnu" && (arch == "x86_64" || arch == "aarch64");
    let db_bench_wanted = std::env::var_os("CARGO_FEATURE_DB_BENCH").is_some();

    if let Some(dir) = std::env::var_os("LEVELDB_LIB_DIR") {
        let dir = std::path::PathBuf::from(dir);
        match system::find_in(&dir) {
            Some(lib) => {
                system::link(&lib);
                announce("system", &system::describe("LEVELDB_LIB_DIR"));
            }
            None => panic!(
                "LEVELDB_LIB_DIR={}: neither libleveldb.so nor libleveldb.a is there \
                 (unset LEVELDB_LIB_DIR to build LevelDB from source)",
                dir.display()
            ),
        }
        if db_bench_wanted {
            panic!(
                "the `leveldb-db-bench` feature builds LevelDB's db_bench from the bundled \
                 sources; it cannot be combined with LEVELDB_LIB_DIR (a system library)"
            );
        }
        return;
    }
    if has_sources {
        let src = bundled::Sources::locate().unwrap_or_else(|e| panic!("{e}"));
        bundled::build(&src);
        announce("bundled", &bundled::describe());
        if db_bench_wanted {
            let exe = db_bench::build(&src);
            println!("cargo:rustc-env=STRATA_LEVELDB_DB_BENCH={}", exe.display());
        }
        return;
    }
    if db_bench_wanted {
        panic!(
            "the `leveldb-db-bench` feature needs LevelDB's bundled sources, which this \
             target ({arch}-{os}-{env}) does not get"
        );
    }
    match system::find_usual(&arch) {
        Some(lib) => {
            system::link(&lib);
            announce("system", &system::describe("the usual library directories"));
        }
        None => {
            println!(
                "cargo:warning=LevelDB is not built from source on this target ({arch}-{os}-{env}) \
                 and no system library was found (set LEVELDB_LIB_DIR): \
                 `strata bench --engine=leveldb` will be unavailable"
            );
            announce("none", "not available");
        }
    }
}
