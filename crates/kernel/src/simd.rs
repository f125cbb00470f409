//! The instruction sets the kernels are compiled for ([`Isa`]), the one a processor may use
//! ([`Simd`]), and the one way to run a kernel with them ([`simd_dispatch!`]).
//!
//! A kernel's hot loops are written once, over arrays of lanes, and marked
//! `#[inline(always)]`; the compiler turns them into vector code of the width of the function
//! they are inlined into. [`simd_dispatch!`] defines a kernel's entry point: a call inside a
//! function compiled for each instruction set (`#[target_feature]`), so each kernel is
//! compiled once for AVX-512, once for AVX2 and once for the baseline, and the processor's
//! widest is picked at run time. All three give the same bits: the choice changes the speed,
//! never an answer. Rust never fuses a multiplication and an addition on its own; the kernel's
//! one explicit fused multiply-add (`f32::mul_add`, exactly specified) is an instruction where
//! the instruction set has it, and the library's `fmaf` on the baseline.
//!
//! The AVX2 copy is compiled with FMA too, and chosen only on a processor that has both
//! (every processor with AVX2 but one rare line of VIA chips does): without it, each
//! `mul_add` of the `f32` kernel was a call to `fmaf`, and the target table took ten times as
//! long on an AMD EPYC without AVX-512 (Yacht: 1.34 s against 0.14 s).

/// The environment variable that narrows the kernel to one instruction set the processor has
/// (`avx512`, `avx2`, `baseline`): see [`Simd::detect`].
pub const SIMD_ENV: &str = "YAHTZEE_SIMD";

/// An instruction set of x86-64 the solver's kernel is compiled for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Isa {
    /// AVX-512 (512-bit vectors).
    Avx512,
    /// AVX2 and FMA (256-bit vectors).
    Avx2,
    /// Whatever the build target guarantees (SSE2 on x86-64).
    Baseline,
}

impl Isa {
    /// The name of the instruction set in [`SIMD_ENV`] and in records.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Avx512 => "avx512",
            Isa::Avx2 => "avx2",
            Isa::Baseline => "baseline",
        }
    }

    /// The instruction set of a [`Isa::name`].
    pub fn named(name: &str) -> Option<Isa> {
        [Isa::Avx512, Isa::Avx2, Isa::Baseline]
            .into_iter()
            .find(|isa| isa.name() == name)
    }

    /// True when this processor has the instruction set.
    pub fn is_present(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => std::arch::is_x86_feature_detected!("avx512f"),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
            }
            Isa::Baseline => true,
            #[allow(unreachable_patterns)]
            _ => false,
        }
    }
}

/// An instruction set the solver may use on this processor. It can only be made for an
/// instruction set the processor has ([`Simd::detect`], [`Simd::new`]), so running the kernel
/// compiled for it is sound: safe code cannot select AVX-512 on a processor without it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Simd(Isa);

impl Simd {
    /// The baseline instructions, present everywhere.
    pub const BASELINE: Simd = Simd(Isa::Baseline);

    /// The instruction set the kernel runs: the widest of this processor, or the one
    /// [`SIMD_ENV`] names when the processor has it (for benchmarks and for checking another
    /// machine's path: every instruction set gives the same bits). Worked out once.
    pub fn detect() -> Simd {
        static DETECTED: std::sync::OnceLock<Simd> = std::sync::OnceLock::new();
        *DETECTED.get_or_init(|| match Simd::from_env() {
            Ok(Some(simd)) => simd,
            _ => Simd::widest(),
        })
    }

    /// The widest instruction set of this processor.
    pub fn widest() -> Simd {
        [Isa::Avx512, Isa::Avx2]
            .into_iter()
            .find(|isa| isa.is_present())
            .map_or(Simd::BASELINE, Simd)
    }

    /// The instruction set [`SIMD_ENV`] names (`None`: unset), or why it cannot be used: a
    /// name that is none of [`Isa::name`]'s, or an instruction set this processor lacks.
    pub fn from_env() -> Result<Option<Simd>, String> {
        let Some(value) = std::env::var_os(SIMD_ENV) else {
            return Ok(None);
        };
        let value = value.to_string_lossy();
        let have: Vec<&str> = Simd::available().iter().map(|s| s.isa().name()).collect();
        let isa = Isa::named(&value).ok_or_else(|| {
            format!(
                "{value:?} is not an instruction set of the kernel: avx512, avx2 or baseline (this processor has {})",
                have.join(", ")
            )
        })?;
        Simd::new(isa)
            .map(Some)
            .ok_or_else(|| format!("this processor has no {value}: it has {}", have.join(", ")))
    }

    /// `isa`, if this processor has it.
    pub fn new(isa: Isa) -> Option<Simd> {
        isa.is_present().then_some(Simd(isa))
    }

    /// Every instruction set of this processor the kernel is compiled for, widest first.
    pub fn available() -> Vec<Simd> {
        [Isa::Avx512, Isa::Avx2, Isa::Baseline]
            .into_iter()
            .filter_map(Simd::new)
            .collect()
    }

    /// The instruction set.
    pub fn isa(self) -> Isa {
        self.0
    }
}

/// Defines `fn $name(simd: Simd, args: (..)) -> R`, which calls `$kernel` with the arguments
/// compiled for `simd`'s instruction set: one copy of the call per instruction set, each a
/// function with `#[target_feature]` whose parameters are the kernel's own, and a match on
/// [`Simd::isa`]. The kernel, and every function of the hot loops it calls, must be
/// `#[inline(always)]`: that is what compiles them into each copy. Generics go in brackets
/// and must be inferable from the arguments.
///
/// Why a macro rather than a function taking the arguments as a struct: the parameters of
/// the copies are the kernel's own, so the compiler knows that a `&mut` argument borrows
/// nothing else, as it would calling the kernel directly. Passed inside a struct, that is
/// lost, and the expected-score kernel ran 2% more instructions (scalar reloads in its hot
/// loops; callgrind, full Yahtzee solve).
#[macro_export]
macro_rules! simd_dispatch {
    (
        $(#[$attr:meta])*
        $vis:vis fn $name:ident[$($generics:tt)*]($($arg:ident: $ty:ty),+ $(,)?) -> $ret:ty {
            $kernel:expr
        }
    ) => {
        $(#[$attr])*
        $vis fn $name<$($generics)*>(
            simd: $crate::simd::Simd,
            ($($arg,)+): ($($ty,)+),
        ) -> $ret {
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx512f")]
            fn avx512<$($generics)*>($($arg: $ty),+) -> $ret {
                $kernel($($arg),+)
            }
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2,fma")]
            fn avx2<$($generics)*>($($arg: $ty),+) -> $ret {
                $kernel($($arg),+)
            }
            match simd.isa() {
                // SAFETY: a `Simd` is only made for an instruction set this processor has
                // (`Simd::new` and `Simd::detect` check).
                #[cfg(target_arch = "x86_64")]
                $crate::simd::Isa::Avx512 => unsafe { avx512($($arg),+) },
                // SAFETY: as above.
                #[cfg(target_arch = "x86_64")]
                $crate::simd::Isa::Avx2 => unsafe { avx2($($arg),+) },
                _ => $kernel($($arg),+),
            }
        }
    };
}
