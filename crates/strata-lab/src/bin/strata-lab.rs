//! Stand-alone `strata-lab` binary (same as `strata lab`), used by the
//! crate's own tests to run plan jobs; `strata lab` is the user entry point.

fn main() {
    let code = match strata_lab::run_cli(std::env::args().skip(1).collect()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e:#}");
            1
        }
    };
    std::process::exit(code);
}
