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
//!
//! The file is trusted as ssh trusts its keys and notebook servers their secrets: only when
//! it is a regular file of the user's own that no one else can read or write. One that others
//! can read (mode 644), write (666), that belongs to another user, or a link to elsewhere, is
//! refused with the fix ([`TokenError::Exposed`]); `--new-token` replaces it (a link itself,
//! never its target) with a new token readable by its owner alone.

use std::fs::{File, Metadata};
use std::io::Read as _;
use std::net::{IpAddr, Ipv4Addr, UdpSocket};
use std::path::{Path, PathBuf};

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

/// Why `serve --lan` has no token to serve with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// The kept token could be known or chosen by others: the file can be read or written by
    /// others, belongs to another user, or is a link. Fix: remove it, or `--new-token`.
    #[error(
        "the token file {} {problem}, so others could read or choose the token that lets a phone in; it is not used: remove it, or start with --new-token to replace it with a new token that you alone can read",
        .path.display()
    )]
    Exposed {
        /// The file.
        path: PathBuf,
        /// What is wrong with it: `is a link to ...`, `can be read by others (mode 644)`, ...
        problem: String,
    },
    /// Something else than a file stands where the token is kept (a folder, a pipe). Fix:
    /// remove it.
    #[error(
        "the token file {} is {kind}, not a file: remove it, and a new token is kept there",
        .path.display()
    )]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What stands there: `a folder`, `a named pipe`, ...
        kind: &'static str,
    },
    /// The system's random source failed. Fix: none from here; try again.
    #[error("cannot make a token: the system's random source failed ({0})")]
    Random(String),
}

/// The token of `serve --lan`: the one an earlier start kept in `path`, or, when there is
/// none (or it is not a token, or `rotate` asks for a new one), a new token kept there for
/// the next start (written through a temporary readable by its owner alone, which replaces
/// whatever stood there: [`yahtzee_core::files::write_secret`]). A kept file that others
/// could read or write, or a link, is refused ([`TokenError::Exposed`]) unless `rotate`
/// replaces it. A token that cannot be kept is used all the same: the second value says why
/// it was not kept.
pub fn kept_token(path: &Path, rotate: bool) -> Result<(String, Option<String>), TokenError> {
    use yahtzee_core::files;
    match std::fs::symlink_metadata(path) {
        // Nothing there (or a folder on the way that cannot be read): a new token below.
        Err(_) => {}
        Ok(meta) if meta.file_type().is_symlink() => {
            if !rotate {
                let to = std::fs::read_link(path)
                    .map_or_else(|_| "elsewhere".to_string(), |t| t.display().to_string());
                return Err(TokenError::Exposed {
                    path: path.to_path_buf(),
                    problem: format!("is a link (to {to})"),
                });
            }
        }
        Ok(meta) if !meta.is_file() => {
            return Err(TokenError::NotAFile {
                path: path.to_path_buf(),
                kind: kind_of(&meta),
            });
        }
        Ok(_) if rotate => {}
        Ok(_) => {
            if let Some(kept) = read_kept(path)? {
                return Ok((kept, None));
            }
        }
    }
    let token = new_token()?;
    let saved = files::create_folder(files::folder_of(path))
        .and_then(|()| files::write_secret(path, format!("{token}\n").as_bytes()));
    let why = saved.err().map(|e| {
        format!(
            "the token of --lan cannot be kept in {} ({e}): it changes at the next start",
            path.display()
        )
    });
    Ok((token, why))
}

/// The token kept in the regular file `path`, if it holds one; refused when others could
/// read or write the file. The file is opened without following a link (a link put there
/// since it was looked at is not read) and without waiting (a pipe put there), and checked
/// on what was opened before a byte is read.
fn read_kept(path: &Path) -> Result<Option<String>, TokenError> {
    let Ok(file) = open_no_follow(path) else {
        // Unreadable: replaced by a new token, kept as the user's own.
        return Ok(None);
    };
    let Ok(meta) = file.metadata() else {
        return Ok(None);
    };
    if !meta.is_file() {
        return Err(TokenError::NotAFile {
            path: path.to_path_buf(),
            kind: kind_of(&meta),
        });
    }
    if let Some(problem) = exposed(&meta) {
        return Err(TokenError::Exposed {
            path: path.to_path_buf(),
            problem,
        });
    }
    let mut bytes = Vec::new();
    if file.take(1024).read_to_end(&mut bytes).is_err() {
        return Ok(None);
    }
    let kept = std::str::from_utf8(&bytes).unwrap_or("").trim();
    Ok((kept.len() == 48 && kept.bytes().all(|c| c.is_ascii_hexdigit())).then(|| kept.to_string()))
}

/// Opens `path` for reading, never through a link at `path` and never waiting on a pipe.
fn open_no_follow(path: &Path) -> std::io::Result<File> {
    let mut options = File::options();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    options.open(path)
}

/// What others could do with the token file of `meta`, in words, or `None` when it is the
/// user's own and no one else can read or write it.
#[cfg(unix)]
fn exposed(meta: &Metadata) -> Option<String> {
    use std::os::unix::fs::MetadataExt as _;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if meta.uid() != me {
        return Some(format!(
            "belongs to another user (user id {}; you are {me})",
            meta.uid()
        ));
    }
    let mode = meta.mode() & 0o777;
    let (read, write) = (mode & 0o044 != 0, mode & 0o022 != 0);
    let what = match (read, write) {
        (true, true) => "can be read and written by others",
        (true, false) => "can be read by others",
        (false, true) => "can be written by others",
        (false, false) => return None,
    };
    Some(format!("{what} (mode {mode:o})"))
}

/// Elsewhere the file's permissions are the system's affair.
#[cfg(not(unix))]
fn exposed(_: &Metadata) -> Option<String> {
    None
}

/// What a path that is no file holds, in words: `a folder`, `a named pipe`, ...
fn kind_of(meta: &Metadata) -> &'static str {
    yahtzee_core::files::kind_of(meta.file_type())
}

/// A new secret token: 24 random bytes of the system's random source, in hexadecimal.
pub fn new_token() -> Result<String, TokenError> {
    let mut bytes = [0u8; 24];
    getrandom::fill(&mut bytes).map_err(|e| TokenError::Random(e.to_string()))?;
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

    /// Issue 45: a token file of mode 644 was reused, a planted `000...0` file of mode 666
    /// served as the token, a link was read through and `--new-token` wrote through it. Each
    /// is refused with its fix; --new-token replaces it (the link, not its target).
    #[cfg(unix)]
    #[test]
    fn a_token_file_others_could_read_or_write_or_a_link_is_refused() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(TOKEN_FILE);
        let planted = "0".repeat(48);
        let set_mode = |mode: u32| {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap()
        };
        for (mode, said) in [
            (0o644, "can be read by others (mode 644)"),
            (0o666, "can be read and written by others (mode 666)"),
            (0o620, "can be written by others (mode 620)"),
            (0o640, "can be read by others (mode 640)"),
        ] {
            std::fs::write(&path, format!("{planted}\n")).unwrap();
            set_mode(mode);
            let e = kept_token(&path, false).unwrap_err();
            assert!(matches!(e, TokenError::Exposed { .. }), "{e}");
            assert!(e.to_string().contains(said), "{e}");
            assert!(e.to_string().contains("--new-token"), "{e}");
            // Replaced by a new token, the user's alone.
            let (token, why) = kept_token(&path, true).unwrap();
            assert_eq!(why, None);
            assert_ne!(token, planted);
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "{mode:o}");
            assert_eq!(kept_token(&path, false).unwrap().0, token);
            std::fs::remove_file(&path).unwrap();
        }
        // A link: refused, never read; --new-token replaces the link, not its target.
        let target = dir.path().join("elsewhere");
        std::fs::write(&target, format!("{planted}\n")).unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::symlink(&target, &path).unwrap();
        let e = kept_token(&path, false).unwrap_err();
        assert!(e.to_string().contains("is a link (to "), "{e}");
        let (token, _) = kept_token(&path, true).unwrap();
        assert_ne!(token, planted);
        assert_eq!(
            std::fs::read_to_string(&target).unwrap(),
            format!("{planted}\n")
        );
        let mode = std::fs::metadata(&target).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
        assert!(std::fs::symlink_metadata(&path).unwrap().is_file());
        // A folder or a pipe where the file goes: refused, never replaced.
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        for rotate in [false, true] {
            let e = kept_token(&path, rotate).unwrap_err();
            assert!(e.to_string().contains("is a folder, not a file"), "{e}");
        }
        std::fs::remove_dir(&path).unwrap();
        let fifo = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid C string; mkfifo only makes the node.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let e = kept_token(&path, false).unwrap_err();
        assert!(e.to_string().contains("is a named pipe, not a file"), "{e}");
        std::fs::remove_file(&path).unwrap();
        // A file of another user, of mode 600: refused too (only root can make one).
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } == 0 {
            std::fs::write(&path, format!("{planted}\n")).unwrap();
            set_mode(0o600);
            std::os::unix::fs::chown(&path, Some(1), None).unwrap();
            let e = kept_token(&path, false).unwrap_err();
            assert!(
                e.to_string()
                    .contains("belongs to another user (user id 1; you are 0)"),
                "{e}"
            );
            let (token, _) = kept_token(&path, true).unwrap();
            assert_ne!(token, planted);
            use std::os::unix::fs::MetadataExt as _;
            assert_eq!(std::fs::metadata(&path).unwrap().uid(), 0);
        }
    }

    #[test]
    fn the_qr_code_is_text_with_a_quiet_zone() {
        let text = qr_text("http://192.168.1.2:8080/?token=00ff").unwrap();
        let first = text.lines().next().unwrap();
        assert!(first.chars().all(|c| c == '█'), "{first}");
        assert!(text.lines().count() > 10);
    }
}
