//! Every file the program writes goes through here: written to a temporary name in the same
//! folder, flushed to disk, then renamed into place, so a reader never sees half a file and
//! an interrupted write never damages the file that was there before.
//!
//! A temporary is named `NAME.yahtzee-tmp-PID-N` (the process id and a count within the
//! process). Two things keep them from piling up:
//!
//! - every temporary this process has open is kept in a global set, and
//!   [`remove_temporaries`] deletes them: the binary calls it when it is interrupted (Ctrl-C,
//!   SIGTERM);
//! - a process killed outright (`kill -9`, a crash, a power cut) cannot clean up, so each new
//!   write into a folder first deletes the temporaries of processes that no longer exist
//!   ([`remove_stale_temporaries`]). Whether a process exists is asked of `/proc` on Linux;
//!   elsewhere it cannot be known cheaply, and the temporaries are left alone. A process id
//!   can mislead (a writer in another PID namespace sharing the folder), so a writer also
//!   holds a lock on its temporary, and one whose lock is held is never deleted.
//!
//! [`same_file`] says whether two paths name one file, for the check an output path passes
//! before a long computation (`tables::container::check_output`: never over a table).
//!
//! Only regular files are read or written: a device, a named pipe or a socket at an input or
//! output path is refused before it is opened ([`open_regular`], [`output_path`]), so that no
//! device node is replaced by a file, no pipe blocks the program for ever and no endless
//! device (`/dev/zero`) is read. A link to a regular file is read and written through (the
//! link stays a link), except by a secret ([`write_secret`]: a file its owner alone can read
//! from the moment it is made, which replaces a link at its path).

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// What sits between a file's name and the process id in the name of its temporary.
const MARKER: &str = ".yahtzee-tmp-";

/// The temporaries this process has open, removed by [`remove_temporaries`].
static OPEN: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

/// Temporaries made so far by this process: the `N` of their names, so that two writes of the
/// same file by one process never share a temporary.
static MADE: AtomicU64 = AtomicU64::new(0);

fn open_set() -> MutexGuard<'static, BTreeSet<PathBuf>> {
    // A panic while the set was held leaves it consistent (inserts and removes are whole).
    OPEN.lock().unwrap_or_else(|e| e.into_inner())
}

/// Writes `path` through a temporary: `write` fills the temporary file, which is then synced
/// and renamed to `path`. If `write` fails, or the process is interrupted, the temporary is
/// removed and whatever `path` held before is untouched.
pub fn write_file<T, E>(path: &Path, write: impl FnOnce(&mut File) -> Result<T, E>) -> Result<T, E>
where
    E: From<io::Error>,
{
    let mut tmp = Temporary::create(path)?;
    let value = write(&mut tmp.file)?;
    tmp.commit()?;
    Ok(value)
}

/// Writes `bytes` to `path` through a temporary (see [`write_file`]).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_file(path, |f| f.write_all(bytes))
}

/// Writes `bytes`, a secret, to `path` through a temporary that only its owner can read or
/// write from the moment it is made (mode 600 on Unix), synced and renamed onto `path`
/// itself: whatever stands there (a file of others, a link) is replaced, and a link is never
/// written through. A folder at `path` is not replaced: the rename fails.
pub fn write_secret(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut tmp = Temporary::open(path, 0o600)?;
    tmp.file.write_all(bytes)?;
    tmp.commit()
}

/// The folder `path` is written into (`.` for a bare file name).
pub fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Creates `dir` and its missing parents. Where a file stands in the way, the error says
/// which file, instead of the system's bare "File exists" or "Not a directory".
pub fn create_folder(dir: &Path) -> io::Result<()> {
    let nearest = dir
        .ancestors()
        .find(|a| !a.as_os_str().is_empty() && a.exists());
    if let Some(blocker) = nearest.filter(|a| !a.is_dir()) {
        return Err(not_a_folder(blocker));
    }
    fs::create_dir_all(dir)
}

/// Checks that the folder of `path` exists, as an output given by its path needs (the
/// program makes only its own cache folder): the error says which folder is missing, or
/// which file stands where it should be.
pub fn check_folder_of(path: &Path) -> io::Result<()> {
    let folder = folder_of(path);
    if folder.is_dir() {
        Ok(())
    } else if folder.exists() {
        Err(not_a_folder(folder))
    } else {
        Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!(
                "the folder {} does not exist; create it or give another path",
                folder.display()
            ),
        ))
    }
}

fn not_a_folder(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::NotADirectory,
        format!(
            "{} is a file, not a folder: give a path in a folder",
            path.display()
        ),
    )
}

/// What a file type is called in messages: `a folder`, `a named pipe`, ...
pub fn kind_of(t: fs::FileType) -> &'static str {
    if t.is_dir() {
        "a folder"
    } else if t.is_symlink() {
        "a link"
    } else {
        special_kind(t)
    }
}

#[cfg(unix)]
fn special_kind(t: fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        "a named pipe"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else {
        "not a regular file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: fs::FileType) -> &'static str {
    "not a regular file"
}

fn not_regular(path: &Path, t: fs::FileType, fix: &str) -> io::Error {
    let kind = match kind_of(t) {
        "not a regular file" => String::new(),
        kind => format!("{kind}, "),
    };
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{} is {kind}not a regular file: {fix}", path.display()),
    )
}

/// Opens `path` for reading if it is a regular file (or a link to one); a folder, device,
/// pipe or socket is refused without being opened.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let fix = "give the path of a file";
    let meta = fs::metadata(path)?;
    if !meta.is_file() {
        return Err(not_regular(path, meta.file_type(), fix));
    }
    let file = File::open(path)?;
    // Replaced between the two looks: checked again on what was opened.
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(path, meta.file_type(), fix));
    }
    Ok(file)
}

/// The whole regular file at `path` (see [`open_regular`]), refused without being read
/// when it is longer than `max_bytes`.
pub fn read_regular(path: &Path, max_bytes: u64) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let file = open_regular(path)?;
    let len = file.metadata()?.len();
    if len > max_bytes {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{} is {len} bytes, more than the {max_bytes} bytes allowed here",
                path.display()
            ),
        ));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    // A file that grows while it is read stops at the limit too.
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max_bytes {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} grew past {max_bytes} bytes while read", path.display()),
        ));
    }
    Ok(bytes)
}

/// Where a write to `path` lands: `path` itself when nothing is there or a regular file is
/// (replaced), the file a link points to when `path` is a link to a regular file (the link
/// is kept). A folder, a device, a pipe, a socket, or a link to one of them or to nothing, is
/// refused: a write never replaces them.
pub fn output_path(path: &Path) -> io::Result<PathBuf> {
    let fix = "give the path of a regular file, or a new one";
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(path.to_path_buf()),
        Err(e) => Err(e),
        Ok(meta) if meta.is_file() => Ok(path.to_path_buf()),
        Ok(meta) if meta.is_dir() => Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            format!("{} is a folder: give a file name", path.display()),
        )),
        Ok(meta) if meta.file_type().is_symlink() => match fs::metadata(path) {
            Ok(target) if target.is_file() => fs::canonicalize(path),
            Ok(target) => Err(not_regular(path, target.file_type(), fix)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} is a link to a missing file, not a regular file: give the path of a regular file, or a new one",
                    path.display()
                ),
            )),
            Err(e) => Err(e),
        },
        Ok(meta) => Err(not_regular(path, meta.file_type(), fix)),
    }
}

/// An open temporary file, removed when dropped unless committed.
struct Temporary {
    path: PathBuf,
    target: PathBuf,
    file: File,
}

impl Temporary {
    /// The temporary of a write to `target` ([`output_path`]: through a link to a regular
    /// file), readable by everyone the folder lets read it (mode 666 less the umask).
    fn create(target: &Path) -> io::Result<Temporary> {
        let dir = folder_of(target);
        if dir.exists() && !dir.is_dir() {
            return Err(not_a_folder(dir));
        }
        Temporary::open(&output_path(target)?, 0o666)
    }

    /// The temporary of a write to `target` itself, made with `mode` (less the umask; on
    /// Unix).
    fn open(target: &Path, mode: u32) -> io::Result<Temporary> {
        let dir = folder_of(target);
        if dir.exists() && !dir.is_dir() {
            return Err(not_a_folder(dir));
        }
        // Best effort: a folder that cannot be listed still takes the write.
        let _ = remove_stale_temporaries(dir);
        let path = temporary_name(target);
        // Registered before it exists, so an interruption from here on removes it.
        open_set().insert(path.clone());
        let mut options = File::options();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt as _;
            options.mode(mode);
        }
        #[cfg(not(unix))]
        let _ = mode;
        match options.open(&path) {
            Ok(file) => {
                // Held while the file is written, released by the system when this process
                // ends however it ends: what tells a live temporary from a stale one where the
                // process id cannot (a writer in another PID namespace).
                file.lock()?;
                Ok(Temporary {
                    path,
                    target: target.to_path_buf(),
                    file,
                })
            }
            Err(e) => {
                open_set().remove(&path);
                Err(e)
            }
        }
    }

    /// Syncs the file and renames it into place.
    fn commit(self) -> io::Result<()> {
        self.file.sync_all()?;
        // The set is held across the rename, so an interruption cannot remove the temporary
        // while it is being renamed.
        let mut open = open_set();
        fs::rename(&self.path, &self.target)?;
        open.remove(&self.path);
        Ok(())
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        let mut open = open_set();
        if open.remove(&self.path) {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// A temporary name beside `path`, unique to this process and this write:
/// `NAME.yahtzee-tmp-PID-N`.
pub fn temporary_name(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    let n = MADE.fetch_add(1, Ordering::Relaxed);
    name.push(format!("{MARKER}{}-{n}", std::process::id()));
    path.with_file_name(name)
}

/// The process id in the name of a temporary made by [`temporary_name`], if `name` is one.
pub fn temporary_owner(name: &str) -> Option<u32> {
    let (_, tail) = name.rsplit_once(MARKER)?;
    let (pid, n) = tail.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(pid) && digits(n)).then(|| pid.parse().ok())?
}

/// Removes every temporary this process has open: what to do when it is interrupted.
pub fn remove_temporaries() {
    let mut open = open_set();
    for path in std::mem::take(&mut *open) {
        let _ = fs::remove_file(path);
    }
}

/// Removes the temporaries in `dir` left by processes that no longer exist (killed before
/// they could clean up), and returns how many. On systems without `/proc` nothing is removed.
pub fn remove_stale_temporaries(dir: &Path) -> io::Result<usize> {
    let mut removed = 0;
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let Some(pid) = entry.file_name().to_str().and_then(temporary_owner) else {
            continue;
        };
        let path = entry.path();
        let stale = if pid == std::process::id() {
            // Our own id: stale unless it is one of ours (a process before us had this id).
            !open_set().contains(&path)
        } else {
            process_is_gone(pid)
        };
        if stale
            && entry.file_type()?.is_file()
            && unlocked(&path)
            && fs::remove_file(&path).is_ok()
        {
            removed += 1;
        }
    }
    Ok(removed)
}

/// True when no process holds the lock of the temporary at `path` (see
/// [`Temporary::create`]): its writer has ended. A writer whose process id means nothing
/// here (another PID namespace sharing the folder) still holds it.
fn unlocked(path: &Path) -> bool {
    File::open(path).is_ok_and(|f| f.try_lock().is_ok())
}

/// True when no process `pid` exists; false when it exists or this cannot be known.
fn process_is_gone(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        // Without /proc mounted every process would look gone: then nothing is known.
        Path::new("/proc/self").exists() && !Path::new(&format!("/proc/{pid}")).exists()
    } else {
        false
    }
}

/// True when `a` and `b` name the same file, whether or not it exists yet (`./x` and `x`, a
/// link and its target).
pub fn same_file(a: &Path, b: &Path) -> bool {
    /// The folder resolved (links, `..`) and the file name; the path itself if the folder is
    /// missing.
    fn resolved(p: &Path) -> PathBuf {
        if let Ok(full) = fs::canonicalize(p) {
            return full;
        }
        match (fs::canonicalize(folder_of(p)), p.file_name()) {
            (Ok(dir), Some(name)) => dir.join(name),
            _ => p.to_path_buf(),
        }
    }
    resolved(a) == resolved(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn temporary_names_carry_the_process_and_are_never_reused() {
        let a = temporary_name(Path::new("/x/t.table"));
        let b = temporary_name(Path::new("/x/t.table"));
        assert_ne!(a, b);
        let name = a.file_name().unwrap().to_str().unwrap();
        assert!(name.starts_with("t.table.yahtzee-tmp-"), "{name}");
        assert_eq!(temporary_owner(name), Some(std::process::id()));
        for other in [
            "t.table",
            "t.tmp123",
            "x.yahtzee-tmp-12",
            "x.yahtzee-tmp-a-1",
            "x.yahtzee-tmp--1",
        ] {
            assert_eq!(temporary_owner(other), None, "{other}");
        }
        assert_eq!(temporary_owner("a.csv.yahtzee-tmp-77-0"), Some(77));
    }

    #[test]
    fn a_failed_write_removes_its_temporary_and_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        fs::write(&path, "old").unwrap();
        let r: io::Result<()> = write_file(&path, |f| {
            f.write_all(b"half of the new")?;
            Err(io::Error::other("disk full"))
        });
        assert_eq!(r.unwrap_err().to_string(), "disk full");
        assert_eq!(fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(names(dir.path()), ["out.csv"]);
        write_atomically(&path, b"new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(names(dir.path()), ["out.csv"]);
    }

    /// Issue 45: `serve --lan --new-token` wrote the token through a link at its path (the
    /// link's target replaced and set to 0600). A secret replaces the link, and is its owner's
    /// alone from the start.
    #[cfg(unix)]
    #[test]
    fn a_secret_replaces_a_link_and_is_never_readable_by_others() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("elsewhere");
        fs::write(&target, "theirs").unwrap();
        let path = dir.path().join("secret");
        std::os::unix::fs::symlink(&target, &path).unwrap();
        write_secret(&path, b"mine").unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "theirs");
        let meta = fs::symlink_metadata(&path).unwrap();
        assert!(meta.is_file(), "{meta:?}");
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        assert_eq!(fs::read_to_string(&path).unwrap(), "mine");
        assert_eq!(names(dir.path()), ["elsewhere", "secret"]);
    }

    #[test]
    fn create_folder_names_the_file_in_the_way() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        fs::write(&file, "x").unwrap();
        let e = create_folder(&file.join("a/b")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotADirectory);
        assert!(e.to_string().contains("is a file, not a folder"), "{e}");
        create_folder(&dir.path().join("a/b")).unwrap();
        assert!(dir.path().join("a/b").is_dir());
    }

    #[test]
    fn same_file_sees_through_dot_and_missing_files() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("x.csv");
        let b = dir.path().join(".").join("x.csv");
        assert!(same_file(&a, &b));
        fs::write(&a, "").unwrap();
        assert!(same_file(&a, &b));
        assert!(!same_file(&a, &dir.path().join("y.csv")));
    }
}
