//! The `strata` command.

mod completions;
mod inspect;
mod stress;

/// Dispatches `strata <subcommand> ...`; the process exits with the code
/// the subcommand returns, or 1 after printing `error: ...` (with its causes,
/// without a backtrace even under `RUST_BACKTRACE=1`).
fn main() {
    // A closed pipe (`strata lab plan ... | head`) ends the process as it
    // ends other Unix tools, instead of a panic in `println!`.
    // SAFETY: restoring the default disposition of SIGPIPE before any thread
    // starts; no handler runs Rust code.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    match run() {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::exit(1)
        }
    }
}

fn run() -> anyhow::Result<i32> {
    let args: Vec<String> = std::env::args().collect();
    let rest = args.get(2..).map(<[String]>::to_vec).unwrap_or_default();
    let code = match args.get(1).map(String::as_str) {
        Some("bench") => strata_bench::run_cli(rest)?,
        Some("inspect") => inspect::run(rest)?,
        Some("lab") => strata_lab::run_cli(rest)?,
        Some("stress") => stress::run(rest)?,
        Some("completions") => completions::run(rest)?,
        Some("--version" | "-V") => {
            println!(
                "strata {} ({})",
                env!("CARGO_PKG_VERSION"),
                strata_bench::build_info::describe()
            );
            0
        }
        Some(other) => {
            anyhow::bail!(
                "unknown subcommand '{other}' (expected: bench, lab, inspect, stress, completions)"
            )
        }
        None => anyhow::bail!(
            "usage: strata <subcommand> ... (subcommands: bench, lab, inspect, stress, completions)"
        ),
    };
    Ok(code)
}
