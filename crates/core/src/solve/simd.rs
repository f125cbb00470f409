//! The instruction sets the kernels are compiled for ([`Isa`]), the one a processor may use
//! ([`Simd`]), and the one way to run a kernel with them ([`Simd::run`]).
//!
//! A kernel's hot loops are written once, over arrays of lanes, and marked
//! `#[inline(always)]`; the compiler turns them into vector code of the width of the function
//! they are inlined into. [`Simd::run`] calls a [`SimdTask`] inside a function compiled for
//! the chosen instruction set (`#[target_feature]`), one per instruction set, so each task is
//! compiled once for AVX-512, once for AVX2 and once for the baseline, and the processor's
//! widest is picked at run time. No variant uses fused multiply-add (not enabled), so all
//! three give the same bits: the choice changes the speed, never an answer.

/// An instruction set of x86-64 the solver's kernel is compiled for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Isa {
    /// AVX-512 (512-bit vectors).
    Avx512,
    /// AVX2 (256-bit vectors).
    Avx2,
    /// Whatever the build target guarantees (SSE2 on x86-64).
    Baseline,
}

impl Isa {
    /// True when this processor has the instruction set.
    pub fn is_present(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => std::arch::is_x86_feature_detected!("avx512f"),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
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

    /// The widest instruction set of this processor.
    pub fn detect() -> Simd {
        [Isa::Avx512, Isa::Avx2]
            .into_iter()
            .find(|isa| isa.is_present())
            .map_or(Simd::BASELINE, Simd)
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

    /// Runs `task` compiled for this instruction set.
    #[inline]
    pub(crate) fn run<T: SimdTask>(self, task: T) -> T::Output {
        match self.0 {
            // SAFETY: a `Simd` is only made for an instruction set this processor has
            // (`Simd::new` and `Simd::detect` check).
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => unsafe { run_avx512(task) },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => unsafe { run_avx2(task) },
            _ => task.run(),
        }
    }
}

/// A kernel's work, compiled for each instruction set by [`Simd::run`]: the arguments of one
/// call, and the call. The implementation of [`SimdTask::run`] must be `#[inline(always)]`,
/// like every function of the hot loops it calls: that is what compiles them into the
/// function of each instruction set (a function left out of line is compiled once, for the
/// baseline).
pub(crate) trait SimdTask {
    /// What the work returns.
    type Output;

    /// Does the work. Mark it `#[inline(always)]`.
    fn run(self) -> Self::Output;
}

/// [`SimdTask::run`] compiled with AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn run_avx512<T: SimdTask>(task: T) -> T::Output {
    task.run()
}

/// [`SimdTask::run`] compiled with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn run_avx2<T: SimdTask>(task: T) -> T::Output {
    task.run()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: `Simd` and `SolveOptions` were public with public variants, so safe code
    /// could select AVX-512 on a processor without it (undefined behaviour). Now a `Simd` is
    /// made only for an instruction set the processor has.
    #[test]
    fn unsupported_simd_level_cannot_be_constructed() {
        for isa in [Isa::Avx512, Isa::Avx2, Isa::Baseline] {
            assert_eq!(Simd::new(isa).is_some(), isa.is_present(), "{isa:?}");
        }
        #[cfg(target_arch = "x86_64")]
        assert_eq!(
            Simd::new(Isa::Avx512).is_some(),
            std::arch::is_x86_feature_detected!("avx512f")
        );
        assert!(Simd::available().contains(&Simd::detect()));
        assert_eq!(Simd::new(Isa::Baseline), Some(Simd::BASELINE));
    }

    /// A sum of squares, as a task.
    struct SumOfSquares<'a>(&'a [f64]);

    impl SimdTask for SumOfSquares<'_> {
        type Output = f64;

        #[inline(always)]
        fn run(self) -> f64 {
            self.0.iter().map(|x| x * x).sum()
        }
    }

    /// Every instruction set of this processor gives the same bits.
    #[test]
    fn every_instruction_set_runs_a_task_to_the_same_bits() {
        let xs: Vec<f64> = (0..1000).map(|i| f64::from(i) / 7.0).collect();
        let bits: Vec<u64> = Simd::available()
            .into_iter()
            .map(|simd| simd.run(SumOfSquares(&xs)).to_bits())
            .collect();
        assert!(bits.windows(2).all(|w| w[0] == w[1]), "{bits:?}");
    }
}
