//! The `strata` command.

mod inspect;
mod stress;

/// Dispatches `strata <subcommand> ...`; the process exits with the code
/// the subcommand returns.
fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let rest = args.get(2..).map(<[String]>::to_vec).unwrap_or_default();
    let code = match args.get(1).map(String::as_str) {
        Some("bench") => strata_bench::run_cli(rest)?,
        Some("inspect") => inspect::run(rest)?,
        Some("lab") => strata_lab::run_cli(rest)?,
        Some("stress") => stress::run(rest)?,
        Some("--version" | "-V") => {
            println!("strata {}", env!("CARGO_PKG_VERSION"));
            0
        }
        Some(other) => {
            anyhow::bail!("unknown subcommand '{other}' (expected: bench, lab, inspect, stress)")
        }
        None => anyhow::bail!(
            "usage: strata <subcommand> ... (subcommands: bench, lab, inspect, stress)"
        ),
    };
    std::process::exit(code)
}
