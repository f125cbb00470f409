//! What a lane of the two-player solve carries: the value alone (`f32`, `f64`), or the value
//! and, beside it, the chance of a tie under the very choices the value makes ([`Duo`]).
//!
//! The value `P(win) + 1/2 P(tie)` decides every choice; the chance of a tie is not a
//! maximum of anything, it follows the choices. A [`Duo`] lane runs through the same turn
//! kernel as a number: sums and means act on both parts, and every maximum compares the
//! values only and takes the whole lane of the option it picks, so the tie chance is that of
//! the option the value chose. The value's bits are those of a value-only solve (the same
//! operations on the same numbers).
//!
//! Which option the kernel picks among options of exactly the same value: the keep with
//! the fewest dice (the lattice's maximum keeps a smaller keep on equality), and the box
//! first on the card (the two-player plan lists the boxes last to first, and a maximum
//! keeps the later row on equality). But the chance of a tie is not fixed by optimal play:
//! policies of the same value can tie more or less often (a sure tie is worth as much as an
//! even chance of a win or a loss), and options equal in exact arithmetic differ in the
//! last bits of any floating-point sum, which then decide. So the tie chance reported is
//! that of the solve's own optimal policy (the same bits at any thread count); on reduced
//! games a brute force finds such choices at about half the positions, spanning tie chances
//! up to 7.4e-4 apart (`tests/twoplayer.rs`).
//!
//! In the kernel, `f32` duos do not run side by side: a block of lanes becomes
//! [`DuoPack`]s of 16 lanes, the values in one array and the tie chances in another
//! (the core's `Lane::Block`), so that a maximum is one comparison of values and two blends, and a
//! sum one addition per part, over whole registers. Each operation is the duo's, lane by
//! lane: the same bits as `Duo<f32>` lanes.

use std::ops::{Add, Mul};
use std::sync::LazyLock;

use crate::real::{POINT_VALUES, Real};

/// A value with the chance of a tie carried beside it. Compared (and so chosen by the
/// kernel's maxima) by the value alone; added and scaled part by part.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct Duo<T> {
    /// The chance of winning plus half the chance of a tie (as the lane's objective has it).
    pub value: T,
    /// The chance of a tie, under the choices the value makes.
    pub tie: T,
}

impl<T: PartialEq> PartialEq for Duo<T> {
    /// Equal values: lanes compare by their value alone (the tie chance is not a criterion).
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<T: PartialOrd> PartialOrd for Duo<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        self.value.partial_cmp(&other.value)
    }

    #[inline(always)]
    fn gt(&self, other: &Self) -> bool {
        self.value > other.value
    }
}

impl<T: Add<Output = T>> Add for Duo<T> {
    type Output = Duo<T>;
    #[inline(always)]
    fn add(self, o: Duo<T>) -> Duo<T> {
        Duo {
            value: self.value + o.value,
            tie: self.tie + o.tie,
        }
    }
}

impl<T: Mul<Output = T>> Mul for Duo<T> {
    type Output = Duo<T>;
    #[inline(always)]
    fn mul(self, o: Duo<T>) -> Duo<T> {
        Duo {
            value: self.value * o.value,
            tie: self.tie * o.tie,
        }
    }
}

macro_rules! duo {
    ($t:ty) => {
        impl Real for Duo<$t> {
            const ZERO: Self = Duo {
                value: 0.0,
                tie: 0.0,
            };
            const ONE: Self = Duo {
                value: 1.0,
                tie: 1.0,
            };
            const NEG_INFINITY: Self = Duo {
                value: <$t>::NEG_INFINITY,
                tie: 0.0,
            };
            // Points add to the value only (the kernel adds them for the boxes that "add
            // their points", which a vector objective's plan never has).
            const POINTS: [Self; POINT_VALUES] = {
                let mut table = [Duo {
                    value: 0.0,
                    tie: 0.0,
                }; POINT_VALUES];
                let mut p = 0;
                while p < POINT_VALUES {
                    table[p].value = p as $t;
                    p += 1;
                }
                table
            };
            #[inline(always)]
            fn sixth(self) -> Self {
                Duo {
                    value: self.value.sixth(),
                    tie: self.tie.sixth(),
                }
            }
            fn roll_ways() -> &'static [Self] {
                static WAYS: LazyLock<Vec<Duo<$t>>> = LazyLock::new(|| {
                    <$t>::roll_ways()
                        .iter()
                        .map(|&w| Duo { value: w, tie: w })
                        .collect()
                });
                &WAYS
            }
            /// A value with no chance of a tie.
            #[inline(always)]
            fn from_f64(x: f64) -> Self {
                Duo {
                    value: x as $t,
                    tie: 0.0,
                }
            }
            /// The value.
            #[inline(always)]
            fn to_f64(self) -> f64 {
                f64::from(self.value)
            }
            type Wide = (f64, f64);
            const WIDE_ZERO: (f64, f64) = (0.0, 0.0);
            #[inline(always)]
            fn wide_add(acc: (f64, f64), x: Self) -> (f64, f64) {
                (acc.0 + f64::from(x.value), acc.1 + f64::from(x.tie))
            }
            #[inline(always)]
            fn wide_div(acc: (f64, f64), d: f64) -> (f64, f64) {
                (acc.0 / d, acc.1 / d)
            }
            #[inline(always)]
            fn wide_value(acc: (f64, f64)) -> f64 {
                acc.0
            }
            /// By the values alone.
            #[inline(always)]
            fn greater(a: Self, b: Self) -> Self {
                if a.value > b.value { a } else { b }
            }
        }
    };
}

duo!(f32);
duo!(f64);

/// Lanes of a [`DuoPack`]: 16 `f32`, one AVX-512 register per part.
pub const PACK: usize = 16;

/// [`PACK`] lanes of `Duo<f32>` with the values apart from the tie chances: the kernel's
/// element for a solve with ties. Each operation is that of a `Duo<f32>` lane by lane (the
/// same bits), but a maximum compares one register of values and blends two registers,
/// where `Duo` lanes side by side had to be pulled apart first (measured: the solve with
/// ties took 2.5 times as long as the values alone).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct DuoPack {
    /// The lanes' values.
    pub value: [f32; PACK],
    /// The lanes' tie chances.
    pub tie: [f32; PACK],
}

impl DuoPack {
    /// Every lane `d`.
    pub const fn splat(d: Duo<f32>) -> DuoPack {
        DuoPack {
            value: [d.value; PACK],
            tie: [d.tie; PACK],
        }
    }

    #[inline(always)]
    fn zip(self, o: DuoPack, f: impl Fn(f32, f32) -> f32) -> DuoPack {
        DuoPack {
            value: std::array::from_fn(|i| f(self.value[i], o.value[i])),
            tie: std::array::from_fn(|i| f(self.tie[i], o.tie[i])),
        }
    }
}

impl PartialEq for DuoPack {
    /// Equal values in every lane (as `Duo`, the tie chances are not a criterion).
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl Add for DuoPack {
    type Output = DuoPack;
    #[inline(always)]
    fn add(self, o: DuoPack) -> DuoPack {
        self.zip(o, |a, b| a + b)
    }
}

impl Mul for DuoPack {
    type Output = DuoPack;
    #[inline(always)]
    fn mul(self, o: DuoPack) -> DuoPack {
        self.zip(o, |a, b| a * b)
    }
}

impl Real for DuoPack {
    const ZERO: Self = DuoPack::splat(Duo::<f32>::ZERO);
    const ONE: Self = DuoPack::splat(Duo::<f32>::ONE);
    const NEG_INFINITY: Self = DuoPack::splat(Duo::<f32>::NEG_INFINITY);
    const POINTS: [Self; POINT_VALUES] = {
        let mut table = [DuoPack::ZERO; POINT_VALUES];
        let mut p = 0;
        while p < POINT_VALUES {
            table[p] = DuoPack::splat(Duo::<f32>::POINTS[p]);
            p += 1;
        }
        table
    };
    #[inline(always)]
    fn sixth(self) -> Self {
        DuoPack {
            value: self.value.map(f32::sixth),
            tie: self.tie.map(f32::sixth),
        }
    }
    fn roll_ways() -> &'static [Self] {
        static WAYS: LazyLock<Vec<DuoPack>> = LazyLock::new(|| {
            Duo::<f32>::roll_ways()
                .iter()
                .map(|&w| DuoPack::splat(w))
                .collect()
        });
        &WAYS
    }
    /// Every lane `x`, with no chance of a tie.
    fn from_f64(x: f64) -> Self {
        DuoPack::splat(Duo::<f32>::from_f64(x))
    }
    /// The first lane's value (a pack is read lane by lane: the two-player solve's `Lane::extend_wide`).
    fn to_f64(self) -> f64 {
        f64::from(self.value[0])
    }
    type Wide = ([f64; PACK], [f64; PACK]);
    const WIDE_ZERO: Self::Wide = ([0.0; PACK], [0.0; PACK]);
    #[inline(always)]
    fn wide_add(acc: Self::Wide, x: Self) -> Self::Wide {
        (
            std::array::from_fn(|i| acc.0[i] + f64::from(x.value[i])),
            std::array::from_fn(|i| acc.1[i] + f64::from(x.tie[i])),
        )
    }
    #[inline(always)]
    fn wide_div(acc: Self::Wide, d: f64) -> Self::Wide {
        (acc.0.map(|v| v / d), acc.1.map(|v| v / d))
    }
    /// The first lane's value, as [`Real::to_f64`].
    fn wide_value(acc: Self::Wide) -> f64 {
        acc.0[0]
    }
    #[inline(always)]
    fn greater(a: Self, b: Self) -> Self {
        let take: [bool; PACK] = std::array::from_fn(|i| a.value[i] > b.value[i]);
        DuoPack {
            value: std::array::from_fn(|i| if take[i] { a.value[i] } else { b.value[i] }),
            tie: std::array::from_fn(|i| if take[i] { a.tie[i] } else { b.tie[i] }),
        }
    }
}
