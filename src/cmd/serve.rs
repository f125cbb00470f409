//! `yahtzee serve`: the web advisor. The server is [`yahtzee_serve`]; this turns the flags
//! into its options, says where it listens and opens the page when asked.

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use anyhow::{Result, anyhow};

use crate::cli::ServeArgs;
use yahtzee_serve::{self as serve, ServeError, ServeOptions};

pub fn run(args: &ServeArgs) -> Result<()> {
    let ip = args.host.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
    if !serve::is_local(ip) {
        eprintln!(
            "warning: listening on {ip}, so other machines can reach this server and use its advice and games; leave --host out to serve this machine only"
        );
    }
    let options = ServeOptions {
        addr: SocketAddr::new(ip, args.port),
        rules: args.rules.rules(),
        // The fixes of the command line: the `yahtzee solve` that rebuilds a table.
        hint: Arc::new(|e, rules, objective| {
            format!(
                "{:#}",
                super::table_error_of(e, rules, None, super::RulesFrom::Flags, objective)
            )
        }),
    };
    let open = args.open;
    let served = serve::run(options, |addr| {
        let url = match addr.ip() {
            IpAddr::V4(v4) if v4.is_unspecified() => format!("http://127.0.0.1:{}/", addr.port()),
            IpAddr::V6(v6) if v6.is_unspecified() => format!("http://[::1]:{}/", addr.port()),
            IpAddr::V6(v6) => format!("http://[{v6}]:{}/", addr.port()),
            IpAddr::V4(v4) => format!("http://{v4}:{}/", addr.port()),
        };
        // The address is the command's result: on stdout, at once, for a script to read.
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "yahtzee serve: listening on {url}");
        let _ = out.flush();
        eprintln!("the page and its API answer until this process stops (Ctrl-C)");
        if open {
            open_browser(&url);
        }
    });
    match served {
        Ok(()) => Ok(()),
        Err(e @ ServeError::Bind { .. }) => Err(anyhow!(
            "{e}; choose another port with --port N (0 for any free port), or an address of this machine with --host"
        )),
        Err(e) => Err(e.into()),
    }
}

/// Opens `url` in the default browser, or says why it cannot.
fn open_browser(url: &str) {
    let program = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    let spawned = std::process::Command::new(program)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(e) = spawned {
        eprintln!("warning: cannot open a browser with {program} ({e}); open {url} yourself");
    }
}
