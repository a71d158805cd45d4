//! What this binary was built from, recorded by `build.rs`.

/// The git commit (`<sha>`, `<sha>-dirty`, or `unknown` outside a checkout).
pub const GIT_COMMIT: &str = env!("STRATA_GIT_COMMIT");

/// The cargo profile and optimisation level (`release (opt-level 3)`).
pub const PROFILE: &str = env!("STRATA_BUILD_PROFILE");

/// Whether debug assertions are compiled in.
pub const ASSERTIONS: bool = cfg!(debug_assertions);

/// `git <commit>, <profile>, assertions enabled|disabled`: appended to
/// Strata's version in the environment header, so every run names the build
/// it ran.
pub fn describe() -> String {
    format!(
        "git {GIT_COMMIT}, {PROFILE}, assertions {}",
        if ASSERTIONS { "enabled" } else { "disabled" }
    )
}
