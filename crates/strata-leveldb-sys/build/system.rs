//! A LevelDB library already on the system (`LEVELDB_LIB_DIR`, or the usual
//! library directories on targets without the bundled sources), linked as
//! it is.

use std::path::{Path, PathBuf};

/// `libleveldb.so` or `libleveldb.a` in `dir`.
pub fn find_in(dir: &Path) -> Option<PathBuf> {
    ["libleveldb.so", "libleveldb.a"]
        .iter()
        .map(|f| dir.join(f))
        .find(|p| p.exists())
}

/// The library in the usual directories for `arch`, if any.
pub fn find_usual(arch: &str) -> Option<PathBuf> {
    [
        format!("/usr/lib/{arch}-linux-gnu"),
        "/usr/lib64".into(),
        "/usr/lib".into(),
        "/usr/local/lib".into(),
    ]
    .iter()
    .find_map(|d| find_in(Path::new(d)))
}

/// Links `lib` (dynamically for a `.so`) and tells the crate its path, so
/// the version line can name it and check it for live assertions.
pub fn link(lib: &Path) {
    let dir = lib.parent().expect("a library file has a directory");
    println!("cargo:rerun-if-changed={}", lib.display());
    println!("cargo:rustc-link-search=native={}", dir.display());
    if lib.extension().is_some_and(|e| e == "a") {
        println!("cargo:rustc-link-lib=static=leveldb");
        // A static LevelDB needs the C++ standard library, and the system's
        // Snappy when it calls it (names `snappy::RawCompress`).
        let bytes = std::fs::read(lib).unwrap_or_default();
        if bytes.windows(19).any(|w| w == b"snappy11RawCompress") {
            println!("cargo:rustc-link-lib=snappy");
        }
        println!("cargo:rustc-link-lib=stdc++");
    } else {
        println!("cargo:rustc-link-lib=leveldb");
    }
    println!("cargo:rustc-env=STRATA_LEVELDB_LIB={}", lib.display());
}

/// The system build, for the engine's version line (the adapter adds the
/// file's name and what it finds in it).
pub fn describe(from: &str) -> String {
    format!("system library from {from}")
}
