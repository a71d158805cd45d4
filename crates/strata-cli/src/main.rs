//! The `strata` command.

mod completions;
mod help;
mod inspect;
mod stress;

/// Dispatches `strata <subcommand> ...`; the process exits with the code
/// the subcommand returns, 2 for a usage error of `strata` itself (no or an
/// unknown subcommand, printed with the overview), or 1 after printing
/// `error: ...` (with its causes, without a backtrace even under
/// `RUST_BACKTRACE=1`).
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
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.split_first() {
        // No subcommand is a usage error, as `strata lab` without one is:
        // the overview goes to stderr and the exit status is 2.
        None => {
            eprint!("{}", help::overview());
            Ok(2)
        }
        Some((first, rest)) => dispatch(first, rest.to_vec()),
    }
}

/// Runs `strata FIRST REST...`; returns the exit code.
fn dispatch(first: &str, rest: Vec<String>) -> anyhow::Result<i32> {
    Ok(match first {
        "bench" => strata_bench::run_cli(rest)?,
        "inspect" => inspect::run(rest)?,
        "lab" => strata_lab::run_cli(rest)?,
        "stress" => stress::run(rest)?,
        "completions" => completions::run(rest)?,
        "help" | "--help" | "-h" => help_for(rest)?,
        "--version" | "-V" => {
            if let Some(extra) = rest.first() {
                return Ok(usage_error(&format!(
                    "{first} takes no arguments (got `{extra}`)"
                )));
            }
            println!(
                "strata {} ({})",
                env!("CARGO_PKG_VERSION"),
                strata_bench::build_info::describe()
            );
            0
        }
        other if other.starts_with('-') => {
            let hint = help::closest(other, help::OPTIONS.iter().copied());
            usage_error(&with_hint(format!("unknown option `{other}`"), hint))
        }
        other => unknown_subcommand(other),
    })
}

/// `strata help [SUBCOMMAND [ARGS...]]`: the overview, or the subcommand's
/// own help (`strata help lab run` is `strata lab run --help`).
fn help_for(args: Vec<String>) -> anyhow::Result<i32> {
    let Some((sub, rest)) = args.split_first() else {
        print!("{}", help::overview());
        return Ok(0);
    };
    match sub.as_str() {
        "help" | "--help" | "-h" if rest.is_empty() => {
            print!("{}", help::overview());
            Ok(0)
        }
        // These have no subcommands of their own: a further word would be
        // silently ignored by their help.
        "bench" | "stress" | "completions" | "help" | "--help" | "-h" if !rest.is_empty() => {
            Ok(usage_error(&format!(
                "`strata help {sub}` takes no further arguments (got `{}`)",
                rest[0]
            )))
        }
        "bench" | "inspect" | "lab" | "stress" | "completions" => {
            let mut sub_args = rest.to_vec();
            sub_args.push("--help".into());
            dispatch(sub, sub_args)
        }
        other => Ok(unknown_subcommand(other)),
    }
}

/// Prints `error: unknown subcommand`, the nearest subcommand if one is
/// close, and the overview, to stderr; returns exit code 2.
fn unknown_subcommand(name: &str) -> i32 {
    let hint = help::closest(name, help::SUBCOMMANDS.iter().map(|(n, _)| *n));
    usage_error(&with_hint(format!("unknown subcommand `{name}`"), hint))
}

/// `message`, with "did you mean" when there is a `hint`.
fn with_hint(message: String, hint: Option<&str>) -> String {
    match hint {
        Some(h) => format!("{message}; did you mean `{h}`?"),
        None => message,
    }
}

/// Prints `error: MESSAGE` and the overview to stderr; returns exit code 2,
/// the code of a usage error in every subcommand.
fn usage_error(message: &str) -> i32 {
    eprintln!("error: {message}\n");
    eprint!("{}", help::overview());
    2
}
