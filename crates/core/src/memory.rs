//! The memory this program may use: what the machine has available, or what
//! `$YAHTZEE_MEMORY_GIB` says, read in one place. A table whose solve or load would need more
//! is refused before any work (`tables::set::check_fits`), and the exact distribution's passes
//! size themselves to it (`stats::spectral`).
//!
//! What is available is the least of what the system reports available (`MemAvailable` of
//! `/proc/meminfo`), what the process's control group may still take (its limit less its use,
//! cgroup v2 or v1) and what its address space may still grow by (`ulimit -v`:
//! the limit of `/proc/self/limits` less the process's size in `/proc/self/status`): each where
//! the system says it (Linux), none elsewhere (then nothing is refused for want of memory, and
//! an allocation that fails is still one line in the binary, not an abort).

use std::path::Path;

/// The environment variable that sets the memory this program may use, in GiB (a number
/// above 0, e.g. `8` or `2.5`), in place of what the system reports available.
pub const MEMORY_ENV: &str = "YAHTZEE_MEMORY_GIB";

/// Bytes in a GiB.
pub const GIB: u64 = 1 << 30;

/// The GiB of a value of [`MEMORY_ENV`]: a number above 0 (e.g. `8` or `2.5`), up to a
/// million, or why not, in words. The one reading of the variable: the budget of every
/// check, and the command line's check of the variable before any work.
pub fn memory_gib(value: &str) -> Result<f64, String> {
    match value.trim().parse::<f64>() {
        Ok(g) if g.is_finite() && g > 0.0 && g <= 1e6 => Ok(g),
        _ => Err(format!(
            "the memory this program may use must be a number of GiB above 0 (e.g. 8 or 2.5), not {value:?}"
        )),
    }
}

/// Where the figure of [`Available`] comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// `$YAHTZEE_MEMORY_GIB`.
    Env,
    /// The system's available memory (`MemAvailable`).
    System,
    /// The memory the process's control group may still take.
    Cgroup,
    /// The room left under the limit of the process's address space (`ulimit -v`).
    AddressSpace,
}

/// The memory this program may use now, and where the figure comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Available {
    /// Bytes.
    pub bytes: u64,
    /// Where the figure comes from.
    pub source: Source,
}

impl Available {
    /// Where the figure comes from, in words, and how to change it: what a refusal says.
    pub fn words(&self) -> String {
        let amount = crate::text::memory(self.bytes);
        match self.source {
            Source::Env => format!("the {amount} that ${MEMORY_ENV} allows"),
            Source::System => format!("the {amount} this machine has available"),
            Source::Cgroup => format!("the {amount} this process's control group may still take"),
            Source::AddressSpace => {
                format!("the {amount} left under this process's address-space limit (ulimit -v)")
            }
        }
    }
}

/// The memory this program may use: [`MEMORY_ENV`] GiB when set to a number ([`memory_gib`];
/// a front end refuses another value first), else the least of what the system says (see the
/// module's documentation), else `None` (a system that says nothing).
pub fn available() -> Option<Available> {
    if let Some(gib) = std::env::var(MEMORY_ENV)
        .ok()
        .and_then(|v| memory_gib(&v).ok())
    {
        return Some(Available {
            bytes: (gib * GIB as f64) as u64,
            source: Source::Env,
        });
    }
    let read = |path: &str| std::fs::read_to_string(Path::new(path)).ok();
    let system = read("/proc/meminfo").and_then(|t| kib_field(&t, "MemAvailable:"));
    let cgroup = read("/proc/self/cgroup").and_then(|t| cgroup_room(&t, &read));
    let address = read("/proc/self/limits").and_then(|limits| {
        let size = read("/proc/self/status").and_then(|t| kib_field(&t, "VmSize:"))?;
        Some(address_limit(&limits)?.saturating_sub(size))
    });
    [
        (system, Source::System),
        (cgroup, Source::Cgroup),
        (address, Source::AddressSpace),
    ]
    .into_iter()
    .filter_map(|(bytes, source)| {
        Some(Available {
            bytes: bytes?,
            source,
        })
    })
    .min_by_key(|a| a.bytes)
}

/// The bytes of a `NAME:   1234 kB` line of `/proc/meminfo` or `/proc/self/status`.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    let value = text.lines().find_map(|l| l.strip_prefix(name))?;
    let kib: u64 = value.trim().trim_end_matches("kB").trim().parse().ok()?;
    kib.checked_mul(1024)
}

/// The limit of the address space in `/proc/self/limits` (`Max address space  LIMIT  HARD
/// bytes`), `None` when unlimited.
fn address_limit(limits: &str) -> Option<u64> {
    let line = limits
        .lines()
        .find_map(|l| l.strip_prefix("Max address space"))?;
    line.split_whitespace().next()?.parse().ok()
}

/// What the control group of the process may still take: its limit less its use
/// (`memory.max` and `memory.current` of cgroup v2, else `memory.limit_in_bytes` and
/// `memory.usage_in_bytes` of cgroup v1, in the group's folder or, in a namespace of its
/// own, at the hierarchy's root), `None` without a limit. `cgroup` is `/proc/self/cgroup`;
/// `read` reads a file of the system.
fn cgroup_room(cgroup: &str, read: &dyn Fn(&str) -> Option<String>) -> Option<u64> {
    let number = |path: String| -> Option<u64> { read(&path)?.trim().parse().ok() };
    // A limit this high is none (cgroup v1 writes "no limit" as a page-rounded 2^63 - 1).
    let room = |limit: u64, used: u64| (limit < 1 << 62).then(|| limit.saturating_sub(used));
    // The unified hierarchy's line: `0::/PATH`.
    if let Some(path) = cgroup.lines().find_map(|l| l.strip_prefix("0::")) {
        let folder = format!("/sys/fs/cgroup{}", path.trim_end_matches('/'));
        if let (Some(max), Some(current)) = (
            number(format!("{folder}/memory.max")),
            number(format!("{folder}/memory.current")),
        ) {
            return room(max, current);
        }
    }
    // The memory controller's line of cgroup v1: `N:memory:/PATH` (or with others, `N:a,memory:/PATH`).
    let path = cgroup.lines().find_map(|l| {
        let mut parts = l.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers
            .split(',')
            .any(|c| c == "memory")
            .then_some(path)
    })?;
    [
        format!("/sys/fs/cgroup/memory{}", path.trim_end_matches('/')),
        "/sys/fs/cgroup/memory".to_string(),
    ]
    .into_iter()
    .find_map(|folder| {
        let limit = number(format!("{folder}/memory.limit_in_bytes"))?;
        let used = number(format!("{folder}/memory.usage_in_bytes"))?;
        Some(room(limit, used))
    })?
}

/// Refuses a need of `bytes` (the one-line `what` says what it is for and of what it is made)
/// when more than the memory available ([`available`]): the one-line error names both
/// figures and what to do. `Ok` where the system says nothing.
pub fn check(bytes: u64, what: &str) -> Result<(), String> {
    match available() {
        Some(available) if bytes > available.bytes => Err(format!(
            "{what} needs {} of memory, more than {}; free some memory or set ${MEMORY_ENV} to what this machine can give, or play a smaller game (fewer boxes, a lower upper-bonus threshold)",
            crate::text::memory(bytes),
            available.words()
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_figures_the_system_gives() {
        let meminfo = "MemTotal:       24567896 kB\nMemAvailable:   20000000 kB\n";
        assert_eq!(kib_field(meminfo, "MemAvailable:"), Some(20_000_000 * 1024));
        assert_eq!(kib_field(meminfo, "VmSize:"), None);
        let limits = "Limit                     Soft Limit           Hard Limit           Units\n\
                      Max cpu time              unlimited            unlimited            seconds\n\
                      Max address space         1536000000           1536000000           bytes\n";
        assert_eq!(address_limit(limits), Some(1_536_000_000));
        let unlimited = limits.replace("1536000000", "unlimited");
        assert_eq!(address_limit(&unlimited), None);
        let files = |path: &str| match path {
            "/sys/fs/cgroup/user.slice/a/memory.max" => Some("4294967296\n".to_string()),
            "/sys/fs/cgroup/user.slice/a/memory.current" => Some("1073741824\n".to_string()),
            "/sys/fs/cgroup/memory.max" => Some("max\n".to_string()),
            _ => None,
        };
        assert_eq!(cgroup_room("0::/user.slice/a\n", &files), Some(3 << 30));
        // No limit, or no file: nothing to say.
        assert_eq!(cgroup_room("0::/\n", &files), None);
        assert_eq!(cgroup_room("4:memory:/x\n", &files), None);
        // cgroup v1: in the group's folder, or at the root in a namespace of its own; a
        // limit of 2^63 is none.
        let v1 = |path: &str| match path {
            "/sys/fs/cgroup/memory/job/memory.limit_in_bytes" => Some("2147483648\n".to_string()),
            "/sys/fs/cgroup/memory/job/memory.usage_in_bytes" => Some("1073741824\n".to_string()),
            "/sys/fs/cgroup/memory/memory.limit_in_bytes" => {
                Some("9223372036854771712\n".to_string())
            }
            "/sys/fs/cgroup/memory/memory.usage_in_bytes" => Some("5\n".to_string()),
            _ => None,
        };
        assert_eq!(cgroup_room("4:memory:/job\n0::/\n", &v1), Some(1 << 30));
        assert_eq!(cgroup_room("4:cpu,memory:/job\n", &v1), Some(1 << 30));
        assert_eq!(cgroup_room("4:memory:/elsewhere\n", &v1), None);
    }

    #[test]
    fn the_memory_variable_is_a_number_of_gib_above_zero() {
        assert_eq!(memory_gib(" 2.5 "), Ok(2.5));
        for bad in ["", "0", "-1", "inf", "NaN", "many", "2e6"] {
            let e = memory_gib(bad).unwrap_err();
            assert!(e.contains("a number of GiB above 0"), "{e}");
        }
    }
}
