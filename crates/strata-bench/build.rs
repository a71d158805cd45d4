//! Finds the LevelDB C library (Debian's `libleveldb-dev`, or a directory in
//! `LEVELDB_LIB_DIR`) and links it for `--engine=leveldb`. Without it the
//! crate still builds, and `--engine=leveldb` says what to install.
//!
//! Also records what the binary is built from: the git commit (with
//! `-dirty` for uncommitted changes to tracked files; `unknown` outside a
//! checkout) and the build profile, for the environment header.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let o = Command::new("git").args(args).output().ok()?;
    o.status
        .success()
        .then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

fn build_info() {
    println!("cargo:rerun-if-env-changed=STRATA_GIT_COMMIT");
    let commit = std::env::var("STRATA_GIT_COMMIT").ok().or_else(|| {
        let mut c = git(&["rev-parse", "HEAD"])?;
        if git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty()) {
            c.push_str("-dirty");
        }
        // Rebuilt when HEAD moves or the index changes.
        for p in ["HEAD", "index", "packed-refs"] {
            if let Some(path) = git(&["rev-parse", "--git-path", p]) {
                println!("cargo:rerun-if-changed={path}");
            }
        }
        if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
            if let Some(path) = git(&["rev-parse", "--git-path", &r]) {
                println!("cargo:rerun-if-changed={path}");
            }
        }
        Some(c)
    });
    println!(
        "cargo:rustc-env=STRATA_GIT_COMMIT={}",
        commit.unwrap_or_else(|| "unknown".into())
    );
    let profile = std::env::var("PROFILE").unwrap_or_else(|_| "unknown".into());
    let opt = std::env::var("OPT_LEVEL").unwrap_or_default();
    println!("cargo:rustc-env=STRATA_BUILD_PROFILE={profile} (opt-level {opt})");
}

fn main() {
    build_info();
    println!("cargo::rustc-check-cfg=cfg(strata_leveldb)");
    println!("cargo:rerun-if-env-changed=LEVELDB_LIB_DIR");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Ok(d) = std::env::var("LEVELDB_LIB_DIR") {
        dirs.push(d.into());
    }
    for d in [
        format!("/usr/lib/{arch}-linux-gnu"),
        "/usr/lib64".into(),
        "/usr/lib".into(),
        "/usr/local/lib".into(),
    ] {
        dirs.push(d.into());
    }
    let found = dirs.iter().find_map(|d| {
        ["libleveldb.so", "libleveldb.a"]
            .iter()
            .map(|f| d.join(f))
            .find(|p| Path::new(p).exists())
            .map(|p| (d.clone(), p))
    });
    match found {
        Some((dir, file)) => {
            println!("cargo:rerun-if-changed={}", file.display());
            println!("cargo:rustc-link-search=native={}", dir.display());
            println!("cargo:rustc-link-lib=leveldb");
            println!("cargo:rustc-cfg=strata_leveldb");
        }
        None => println!(
            "cargo:warning=LevelDB's C library was not found (apt-get install libleveldb-dev, \
             or set LEVELDB_LIB_DIR): `strata bench --engine=leveldb` will be unavailable"
        ),
    }
}
