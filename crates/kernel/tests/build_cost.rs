//! The guard of the build's cost: the machine code of the kernel crate, and of the core
//! library above it, held to a budget. Both were once minutes of every build (the kernel
//! compiled again in every crate that called it, in every instruction set and width: a
//! 12-minute core, a 29-minute test command; `results/build-2026-12-05.md`); a change that
//! brings copies back makes this test fail before it makes the front door slow.
//!
//! The measure is deterministic for a compiler: the bytes of executable sections in the
//! object files of each crate's rlib, as built for this test (the newest rlib of the crate in
//! this test's own folder). Compile time follows it (`results/build-2026-12-06.md` has both).
//! A budget that a deliberate change must exceed is raised here, with the record that
//! measured the change.

use std::path::{Path, PathBuf};

/// The kernel's budget: its 28 copies (4 lane types, the widths of each instruction set, and
/// the advice's one-lane copy) took 395,589 bytes when it was set (rustc 1.95, 2026-12-06),
/// some 21% below; the 7 copies of the turn under saved rolls (`saved_turn`) brought 35
/// copies to 459,200 bytes. Before the kernel had a crate of its own, its copies were most of the
/// core's 5.95 MB (`results/kernel-crate-2026-12-06.md`).
const KERNEL_BUDGET: u64 = 500_000;

/// The core library's budget, the kernel apart: 2,174,213 bytes when it was set, some 29%
/// below.
const CORE_BUDGET: u64 = 2_800_000;

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the budgets are of the release build: cargo test --release"
)]
fn the_kernel_s_machine_code_stays_within_its_budget() {
    let text = executable_bytes("yahtzee_kernel");
    assert!(
        text <= KERNEL_BUDGET,
        "the kernel crate holds {text} bytes of machine code, over its budget of {KERNEL_BUDGET}: \
         a copy of its loops more per lane type, width or instruction set costs every build \
         (crates/kernel/src/entry.rs lists the copies)"
    );
    // And it holds its copies: a kernel that compiled to nothing would pass the budget.
    assert!(
        text > KERNEL_BUDGET / 4,
        "{text} bytes: the kernel's copies are missing"
    );
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the budgets are of the release build: cargo test --release"
)]
fn the_core_s_machine_code_stays_within_its_budget() {
    let Some(rlib) = newest_rlib("yahtzee_core") else {
        // `cargo test -p yahtzee-kernel` alone does not build the core; the test command does.
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "the core's rlib is not beside this test: run the workspace's tests"
        );
        return;
    };
    let text = text_bytes(&rlib);
    assert!(
        text <= CORE_BUDGET,
        "the core library holds {text} bytes of machine code, over its budget of {CORE_BUDGET}: \
         is a kernel loop instantiated in the core again? (the kernel is reached through its \
         entry points only)"
    );
}

/// The bytes of executable sections in the newest rlib of `krate` beside this test.
fn executable_bytes(krate: &str) -> u64 {
    let rlib = newest_rlib(krate).unwrap_or_else(|| panic!("no rlib of {krate} beside this test"));
    text_bytes(&rlib)
}

/// The newest `lib<krate>-*.rlib` in this test's folder (target/<profile>/deps), which cargo
/// built for this run.
fn newest_rlib(krate: &str) -> Option<PathBuf> {
    let exe = std::env::current_exe().expect("the test's path");
    let deps = exe.parent().expect("the test's folder");
    let prefix = format!("lib{krate}-");
    std::fs::read_dir(deps)
        .expect("the test's folder lists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".rlib"))
        })
        .max_by_key(|p| {
            std::fs::metadata(p)
                .and_then(|m| m.modified())
                .expect("an rlib's time")
        })
}

/// The bytes of executable sections (`SHF_EXECINSTR`) of every ELF object in the archive
/// `rlib`.
fn text_bytes(rlib: &Path) -> u64 {
    let bytes = std::fs::read(rlib).expect("the rlib reads");
    assert!(
        bytes.starts_with(b"!<arch>\n"),
        "{}: not an archive",
        rlib.display()
    );
    let mut at = 8;
    let mut total = 0;
    let mut objects = 0;
    while at + 60 <= bytes.len() {
        let header = &bytes[at..at + 60];
        let size: usize = std::str::from_utf8(&header[48..58])
            .expect("an archive member's size")
            .trim()
            .parse()
            .expect("an archive member's size");
        let member = &bytes[at + 60..at + 60 + size];
        if member.starts_with(b"\x7fELF") {
            total += elf_executable_bytes(member);
            objects += 1;
        }
        at += 60 + size + size % 2;
    }
    assert!(objects > 0, "{}: no object file", rlib.display());
    total
}

/// The bytes of an ELF64 (little-endian) object's executable sections.
fn elf_executable_bytes(elf: &[u8]) -> u64 {
    let u16_at = |i: usize| u16::from_le_bytes(elf[i..i + 2].try_into().unwrap());
    let u64_at = |i: usize| u64::from_le_bytes(elf[i..i + 8].try_into().unwrap());
    assert_eq!(elf[4], 2, "a 64-bit object");
    assert_eq!(elf[5], 1, "a little-endian object");
    let (shoff, shentsize, shnum) = (u64_at(0x28) as usize, u16_at(0x3a), u16_at(0x3c));
    const SHF_EXECINSTR: u64 = 0x4;
    (0..usize::from(shnum))
        .map(|i| shoff + i * usize::from(shentsize))
        .filter(|&s| u64_at(s + 8) & SHF_EXECINSTR != 0)
        .map(|s| u64_at(s + 32))
        .sum()
}
