//! `yahtzee serve --lan`: the page on a phone at the table. The server listens on the
//! machine's network address as well as on loopback, and answers only requests that carry
//! its secret token (the notebook servers' convention): in the address printed
//! (`?token=...`), in the `X-Yahtzee-Token` header the page sends with every API call, or in
//! the cookie the first page with the token sets. The address is also printed as a QR code
//! drawn with text, for the phone's camera.
//!
//! The token is what keeps other machines of the network (and pages elsewhere that a browser
//! of this machine visits) out: 192 random bits from the system, compared in constant time.
//! It is kept between starts ([`kept_token`], a file readable by its owner alone in the cache
//! folder), so that a page put on a phone's home screen still opens after a restart; `serve
//! --lan --new-token` makes a new one, which shuts out every page opened with the old. The
//! cookie that carries it lasts as long ([`COOKIE_MAX_AGE`]).

use std::net::{IpAddr, Ipv4Addr, UdpSocket};

use qrcode::QrCode;
use qrcode::render::unicode::Dense1x2;

/// The name of the header that carries the token.
pub const TOKEN_HEADER: &str = "x-yahtzee-token";

/// The name of the cookie that carries the token.
pub const TOKEN_COOKIE: &str = "yahtzee_token";

/// The name of the file that keeps the token between starts, in the cache folder.
pub const TOKEN_FILE: &str = "serve-lan.token";

/// How long a browser keeps the cookie of the token, in seconds: 400 days (the most browsers
/// keep one), so that a page on a phone's home screen opens again days later.
pub const COOKIE_MAX_AGE: u64 = 400 * 24 * 3600;

/// The token of `serve --lan`: the one an earlier start kept in `path`, or, when there is
/// none (or it is not a token, or `rotate` asks for a new one), a new token kept there for
/// the next start (written through a temporary, readable by its owner alone). A token that
/// cannot be kept is used all the same: the second value says why it was not kept.
pub fn kept_token(
    path: &std::path::Path,
    rotate: bool,
) -> Result<(String, Option<String>), std::io::Error> {
    use std::io::Write as _;
    use yahtzee_core::files;
    if !rotate
        && let Ok(bytes) = files::read_regular(path, 1024)
        && let Ok(text) = std::str::from_utf8(&bytes)
    {
        let kept = text.trim();
        if kept.len() == 48 && kept.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Ok((kept.to_string(), None));
        }
    }
    let token = new_token()?;
    let saved = files::create_folder(files::folder_of(path)).and_then(|()| {
        files::write_file(path, |f| {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt as _;
                f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
            }
            writeln!(f, "{token}")
        })
    });
    let why = saved.err().map(|e| {
        format!(
            "the token of --lan cannot be kept in {} ({e}): it changes at the next start",
            path.display()
        )
    });
    Ok((token, why))
}

/// A new secret token: 24 random bytes of the system's random source, in hexadecimal.
pub fn new_token() -> Result<String, std::io::Error> {
    let mut bytes = [0u8; 24];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The address of this machine on its network: the source address of its route to the
/// outside (a UDP socket "connected" to a documentation address sends nothing), or `None`
/// when the machine has no such route.
pub fn network_address() -> Option<IpAddr> {
    let socket = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0)).ok()?;
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): never a real host; connect only picks the route.
    socket.connect((Ipv4Addr::new(192, 0, 2, 1), 9)).ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_unspecified() && !ip.is_loopback()).then_some(ip)
}

/// True when `given` is the token `token`, compared in time that does not depend on where
/// they differ.
pub fn token_matches(given: &[u8], token: &str) -> bool {
    let token = token.as_bytes();
    given.len() == token.len()
        && given
            .iter()
            .zip(token)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

/// `url` as a QR code drawn with text, two rows of modules a line, for a terminal with a
/// dark background: a light module is a block of ink (`█`, `▀`, `▄`), a dark one a space,
/// the quiet zone around it light. Phones' cameras read it from the screen.
pub fn qr_text(url: &str) -> Result<String, qrcode::types::QrError> {
    let code = QrCode::new(url.as_bytes())?;
    Ok(code
        .render::<Dense1x2>()
        .dark_color(Dense1x2::Light)
        .light_color(Dense1x2::Dark)
        .quiet_zone(true)
        .build())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_hex_and_compared_whole() {
        let a = new_token().unwrap();
        let b = new_token().unwrap();
        assert_eq!(a.len(), 48);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert!(token_matches(a.as_bytes(), &a));
        assert!(!token_matches(b.as_bytes(), &a));
        assert!(!token_matches(&a.as_bytes()[..47], &a));
        assert!(!token_matches(b"", &a));
    }

    #[test]
    fn the_token_is_kept_between_starts_until_a_new_one_is_asked_for() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join(TOKEN_FILE);
        let (first, why) = kept_token(&path, false).unwrap();
        assert_eq!(why, None);
        assert_eq!(kept_token(&path, false).unwrap().0, first);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "{mode:o}");
        }
        let (second, _) = kept_token(&path, true).unwrap();
        assert_ne!(second, first);
        assert_eq!(kept_token(&path, false).unwrap().0, second);
        // A file that holds no token is replaced by a new one.
        std::fs::write(&path, "not a token\n").unwrap();
        let (third, _) = kept_token(&path, false).unwrap();
        assert!(third.len() == 48 && third != second);
        // A token that cannot be kept is used all the same, with the reason.
        let blocked = dir.path().join("a-file");
        std::fs::write(&blocked, "x").unwrap();
        let (token, why) = kept_token(&blocked.join(TOKEN_FILE), false).unwrap();
        assert_eq!(token.len(), 48);
        assert!(why.unwrap().contains("cannot be kept"));
    }

    #[test]
    fn the_qr_code_is_text_with_a_quiet_zone() {
        let text = qr_text("http://192.168.1.2:8080/?token=00ff").unwrap();
        let first = text.lines().next().unwrap();
        assert!(first.chars().all(|c| c == '█'), "{first}");
        assert!(text.lines().count() > 10);
    }
}
