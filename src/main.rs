//! The `yahtzee` binary: parse the command line, run the command, print the error and exit 2
//! on failure. All the work is in the library.

/// `eprintln!` that never panics: a note or an error on stderr, whose write error (stderr
/// closed or full) is ignored, as there is nowhere left to report it.
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod alloc;
mod cli;
mod cmd;
mod plot;
mod values;

/// An allocation that fails is one line and exit status 2, never an abort (see [`alloc`]).
#[global_allocator]
static ALLOCATOR: alloc::OneLine = alloc::OneLine;

use std::process::ExitCode;

use clap::Parser;
use clap::error::{ContextKind, ContextValue, ErrorKind};

use cli::{Cli, Command};

fn run(cli: Cli) -> anyhow::Result<()> {
    cmd::check_thread_env()?;
    cmd::check_memory_env()?;
    cmd::check_simd_env()?;
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
        #[cfg(feature = "serve")]
        Command::Serve(args) => cmd::serve::run(args),
        #[cfg(not(feature = "serve"))]
        Command::Serve(_) => Err(cmd::not_built("serve", "`yahtzee serve` (the web advisor)")),
        Command::Completions(args) => cmd::completions::run(args),
        Command::Man(args) => cmd::man::run(args),
    }
}

/// True when the error is a closed stdout (`yahtzee ... | head`): not a failure.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// `text` on one line: control characters (a newline in a file name, say) escaped.
fn one_line(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_debug().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect()
}

/// clap's error as one line: its message and its list of allowed values, without the usage,
/// and the input it quotes cut to an excerpt.
fn clap_error_line(e: &clap::Error) -> String {
    let mut text = e.render().to_string();
    for kind in [ContextKind::InvalidValue, ContextKind::InvalidArg] {
        if let Some(ContextValue::String(raw)) = e.get(kind) {
            // clap quotes the input as 'VALUE': only that quotation is replaced (an empty
            // value, or a quote, also stands elsewhere in the message).
            text = text.replacen(
                &format!("'{raw}'"),
                &format!("'{}'", yahtzee_core::text::excerpt(raw)),
                1,
            );
        }
    }
    let line = text
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more information")
        })
        .collect::<Vec<_>>()
        .join(" ");
    one_line(&line)
}

/// The longest error line, in characters: a message quoting a huge input (a record of
/// thousands of seats) is cut, with its length said.
const ERROR_LINE_CHARS: usize = 1000;

/// `line` cut to [`ERROR_LINE_CHARS`] characters.
fn bounded(line: &str) -> String {
    let chars = line.chars().count();
    if chars <= ERROR_LINE_CHARS {
        return line.to_string();
    }
    let head: String = line.chars().take(ERROR_LINE_CHARS).collect();
    format!("{head}... (a message of {chars} characters, cut)")
}

fn main() -> ExitCode {
    // The commit every result states (build.rs).
    yahtzee_core::report::set_commit(env!("YAHTZEE_COMMIT"));
    // An interrupted write leaves no temporary file behind (a `kill -9` cannot be caught:
    // the next write into the folder removes those).
    let _ = ctrlc::set_handler(|| {
        cmd::leave_bars();
        yahtzee_core::files::remove_temporaries();
        std::process::exit(130);
    });
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // Bare `yahtzee`: the whole help, readable, and the status of a usage error.
            let _ = e.print();
            return ExitCode::from(2);
        }
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            note!("{}; see `yahtzee --help`", bounded(&clap_error_line(&e)));
            return ExitCode::from(2);
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            note!("error: {}", bounded(&one_line(&format!("{e:#}"))));
            ExitCode::from(2)
        }
    }
}
