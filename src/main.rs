//! The `webdiet` binary: parse the command line, run, print, exit. Everything else lives in
//! the library so tests and benchmarks call it directly.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = webdiet::cli::Cli::parse();
    let outcome = cli
        .into_config()
        .and_then(|config| webdiet::app::run(&config));
    match outcome {
        Ok(status) => status.into(),
        Err(err) => {
            eprintln!("webdiet: error: {err}");
            webdiet::app::Status::Fatal.into()
        }
    }
}
