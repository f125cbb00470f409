//! `yahtzee serve`: the web advisor. The server is [`yahtzee_serve`]; this turns the flags
//! into its options, says where it listens (with `--lan`: the address with its token, and
//! its QR code) and opens the page when asked.

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use anyhow::{Result, anyhow};

use crate::cli::ServeArgs;
use yahtzee_serve::{self as serve, ServeError, ServeOptions, lan};

pub fn run(args: &ServeArgs) -> Result<()> {
    let loopback = IpAddr::V4(Ipv4Addr::LOCALHOST);
    let (ip, also, token) = if args.lan {
        let ip = match args.host {
            Some(ip) => ip,
            None => lan::network_address().ok_or_else(|| {
                anyhow!(
                    "--lan found no network address of this machine (no route to a network): give the address to listen on with --host ADDRESS"
                )
            })?,
        };
        // The token of the last start, so that a page put on a phone's home screen still
        // opens (--new-token: a new one).
        let path = yahtzee_core::tables::default_table_dir().join(lan::TOKEN_FILE);
        let (token, not_kept) =
            lan::kept_token(&path, args.new_token).map_err(|e| anyhow!("--lan: {e}"))?;
        if let Some(why) = not_kept {
            eprintln!("warning: {why}");
        }
        // Loopback too, unless the address given covers it already (0.0.0.0, ::).
        let also = (!ip.is_unspecified() && ip != loopback).then_some(loopback);
        (ip, also, Some(token))
    } else {
        (args.host.unwrap_or(loopback), None, None)
    };
    if !serve::is_local(ip) && token.is_none() {
        eprintln!(
            "warning: listening on {ip}, so other machines can reach this server and use its advice and games; leave --host out to serve this machine only, or use --lan to ask for a token"
        );
    }
    let games = args
        .games
        .clone()
        .unwrap_or_else(|| yahtzee_core::tables::default_table_dir().join("games"));
    let options = ServeOptions {
        addr: SocketAddr::new(ip, args.port),
        also,
        token: token.clone(),
        rules: args.rules.rules(),
        prebuild: !args.no_prebuild,
        games,
        // The fixes of the command line: the `yahtzee solve` that rebuilds a table.
        hint: Arc::new(|e, rules, objective| {
            format!(
                "{:#}",
                super::table_error_of(e, rules, None, super::RulesFrom::Flags, objective)
            )
        }),
    };
    let open = args.open;
    let served = serve::run(options, |bound| {
        let query = token
            .as_ref()
            .map_or(String::new(), |t| format!("?token={t}"));
        let url = |addr: &SocketAddr| {
            let host = match addr.ip() {
                IpAddr::V4(v4) if v4.is_unspecified() => "127.0.0.1".to_string(),
                IpAddr::V6(v6) if v6.is_unspecified() => "[::1]".to_string(),
                IpAddr::V6(v6) => format!("[{v6}]"),
                IpAddr::V4(v4) => v4.to_string(),
            };
            format!("http://{host}:{}/{query}", addr.port())
        };
        let first = url(&bound[0]);
        // The address is the command's result: on stdout, at once, for a script to read;
        // with --lan, the loopback address and the QR code of the first follow.
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "yahtzee serve: listening on {first}");
        for other in &bound[1..] {
            let _ = writeln!(out, "yahtzee serve: and on {}", url(other));
        }
        if token.is_some() {
            match lan::qr_text(&first) {
                Ok(qr) => {
                    let _ = writeln!(out, "{qr}");
                }
                Err(e) => eprintln!("warning: cannot draw the QR code of {first}: {e}"),
            }
        }
        let _ = out.flush();
        if token.is_some() {
            eprintln!(
                "open the address above on a phone of this network (scan the QR code with its camera); a request without the token is refused"
            );
        }
        eprintln!("the page and its API answer until this process stops (Ctrl-C)");
        if open {
            open_browser(&url(bound.last().unwrap_or(&bound[0])));
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
