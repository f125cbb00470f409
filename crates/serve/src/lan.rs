//! `yahtzee serve --lan`: the page on a phone at the table. The server listens on the
//! machine's network address as well as on loopback, and answers only requests that carry
//! its secret token (the notebook servers' convention): in the address printed
//! (`?token=...`), in the `X-Yahtzee-Token` header the page sends with every API call, or in
//! the cookie the first page with the token sets. The address is also printed as a QR code
//! drawn with text, for the phone's camera.
//!
//! The token is what keeps other machines of the network (and pages elsewhere that a browser
//! of this machine visits) out: 192 random bits from the system, compared in constant time.

use std::net::{IpAddr, Ipv4Addr, UdpSocket};

use qrcode::QrCode;
use qrcode::render::unicode::Dense1x2;

/// The name of the header that carries the token.
pub const TOKEN_HEADER: &str = "x-yahtzee-token";

/// The name of the cookie that carries the token.
pub const TOKEN_COOKIE: &str = "yahtzee_token";

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
    fn the_qr_code_is_text_with_a_quiet_zone() {
        let text = qr_text("http://192.168.1.2:8080/?token=00ff").unwrap();
        let first = text.lines().next().unwrap();
        assert!(first.chars().all(|c| c == '█'), "{first}");
        assert!(text.lines().count() > 10);
    }
}
