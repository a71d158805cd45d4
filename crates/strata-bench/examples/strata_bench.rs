//! `strata bench` as a standalone binary, for running this crate before the
//! `strata` CLI wires it: `cargo run --release -p strata-bench --example
//! strata_bench -- --benchmarks=fillrandom --num=100000`.

fn main() -> anyhow::Result<()> {
    let code = strata_bench::run_cli(std::env::args().skip(1).collect())?;
    std::process::exit(code);
}
