//! Records what the binary is built from: the git commit (with `-dirty`
//! for uncommitted changes to tracked files; `unknown` outside a checkout)
//! and the build profile, for the environment header. And turns on
//! `--engine=leveldb` (`cfg(strata_leveldb)`) when `strata-leveldb-sys`
//! linked a LevelDB (it builds one from source on the targets it has the
//! sources for).

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
    // `strata-leveldb-sys` says what it linked: `bundled` (LevelDB built
    // from source), `system` (LEVELDB_LIB_DIR) or `none`.
    println!("cargo::rustc-check-cfg=cfg(strata_leveldb)");
    if matches!(
        std::env::var("DEP_STRATA_LEVELDB_KIND").as_deref(),
        Ok("bundled" | "system")
    ) {
        println!("cargo:rustc-cfg=strata_leveldb");
    }
}
