//! The `yahtzee` binary: parse the command line, run the command, print the error and exit 2
//! on failure. All the work is in the library.

mod cli;
mod cmd;

use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};

fn run(cli: Cli) -> anyhow::Result<()> {
    match &cli.command {
        Command::Solve(args) => cmd::solve::run(args),
        Command::Advise(args) => cmd::advise::run(args),
        Command::Verify(args) => cmd::verify::run(args),
        Command::Play(args) => cmd::play::run(args),
        Command::Review(args) => cmd::review::run(args),
        Command::Export(args) => cmd::export::run(args),
        Command::Stats(args) => cmd::stats::run(args),
        Command::Simulate(args) => cmd::simulate::run(args),
        Command::Rules(args) => cmd::rules::run(args),
    }
}

/// True when the error is a closed stdout (`yahtzee ... | head`): not a failure.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            // One line: clap's message and its list of allowed values, without the usage.
            let text = e.render().to_string();
            let line = text
                .lines()
                .map(str::trim)
                .filter(|l| {
                    !l.is_empty()
                        && !l.starts_with("Usage:")
                        && !l.starts_with("For more information")
                })
                .collect::<Vec<_>>()
                .join(" ");
            eprintln!("{line}; see `yahtzee --help`");
            return ExitCode::from(2);
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
