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
//! ([`Lane::Block`]), so that a maximum is one comparison of values and two blends, and a
//! sum one addition per part, over whole registers. Each operation is the duo's, lane by
//! lane: the same bits as `Duo<f32>` lanes.

pub use yahtzee_kernel::{Duo, DuoPack, PACK};

use crate::solve::kernel::{Kernel, Real};
use crate::solve::vector::{Range, fill_shifted};

/// What a lane of the two-player solve carries, and how a turn's result `W` (to the player
/// who moves) becomes the stored vector `S` (to the player who has just moved).
pub trait Lane: Real {
    /// The value alone: what the plies kept for the advice and the table hold.
    type Value: Lane<Value = Self::Value>;
    /// `S` where the player who has just moved has lost: below a vector's range.
    const LOST: Self;
    /// `S` where they have won: above a vector's range.
    const WON: Self;
    /// `S` of the final position at lead 0: a tie.
    const TIED: Self;
    /// `S(y)` from `W(-y)`: one less the value; a tie is a tie for both.
    fn flip(w: Self::Wide) -> Self;
    /// The values alone of a vector of lanes (no copy when the lane is the value alone).
    fn values_of(lanes: Box<[Self]>) -> Box<[Self::Value]>;
    /// The value alone of one lane.
    fn value_part(self) -> Self::Value;
    /// What the kernel computes a block of lanes in: the lane itself (one per element), or,
    /// for an `f32` duo, [`DuoPack`]s of [`PACK`] lanes with their parts apart.
    type Block: Kernel;
    /// Lanes per element of [`Lane::Block`].
    const PER_BLOCK: usize;
    /// Fills a kernel row of `row.len()` blocks with the lanes of `values` (stored from
    /// coordinate `range.lo`) at the coordinates from `x`, the constants `LOST` below the
    /// range and `WON` above it.
    fn fill_row(row: &mut [Self::Block], x: i64, values: &[Self], range: Range);
    /// Appends the first `n` lanes of the blocks' sums `wide` to `out`.
    fn extend_wide(out: &mut Vec<Self::Wide>, wide: &[<Self::Block as Kernel>::Mean], n: usize);
}

macro_rules! value_lane {
    ($t:ty, $block:ty, $per:expr, $fill:ident, $extend:ident) => {
        impl Lane for $t {
            type Value = $t;
            const LOST: $t = 0.0;
            const WON: $t = 1.0;
            const TIED: $t = 0.5;
            #[inline(always)]
            fn flip(w: f64) -> $t {
                (1.0 - w) as $t
            }
            fn values_of(lanes: Box<[$t]>) -> Box<[$t]> {
                lanes
            }
            fn value_part(self) -> $t {
                self
            }
            type Block = $t;
            const PER_BLOCK: usize = 1;
            #[inline(always)]
            fn fill_row(row: &mut [$t], x: i64, values: &[$t], range: Range) {
                fill_in_place(row, x, values, range)
            }
            #[inline(always)]
            fn extend_wide(out: &mut Vec<f64>, wide: &[f64], n: usize) {
                extend_as_is(out, wide, n)
            }
        }

        impl Lane for Duo<$t> {
            type Value = $t;
            const LOST: Self = Duo {
                value: 0.0,
                tie: 0.0,
            };
            const WON: Self = Duo {
                value: 1.0,
                tie: 0.0,
            };
            const TIED: Self = Duo {
                value: 0.5,
                tie: 1.0,
            };
            #[inline(always)]
            fn flip(w: (f64, f64)) -> Self {
                Duo {
                    value: (1.0 - w.0) as $t,
                    tie: w.1 as $t,
                }
            }
            fn values_of(lanes: Box<[Self]>) -> Box<[$t]> {
                lanes.iter().map(|d| d.value).collect()
            }
            fn value_part(self) -> $t {
                self.value
            }
            type Block = $block;
            const PER_BLOCK: usize = $per;
            #[inline(always)]
            fn fill_row(row: &mut [$block], x: i64, values: &[Self], range: Range) {
                $fill(row, x, values, range)
            }
            #[inline(always)]
            fn extend_wide(out: &mut Vec<(f64, f64)>, wide: &[<$block as Kernel>::Mean], n: usize) {
                $extend(out, wide, n)
            }
        }
    };
}

value_lane!(f32, DuoPack, PACK, fill_packs, extend_packs);
value_lane!(f64, Duo<f64>, 1, fill_in_place, extend_as_is);

/// [`Lane::fill_row`] of `f32` duos: each pack's lanes read side by side and split into
/// their parts (a pack wholly inside the stored range straight from it).
#[inline(always)]
fn fill_packs(row: &mut [DuoPack], x: i64, values: &[Duo<f32>], range: Range) {
    let (lo, end) = (i64::from(range.lo), range.end());
    for (p, pack) in row.iter_mut().enumerate() {
        let x0 = x + (p * PACK) as i64;
        let mut edge = [Duo::<f32>::ZERO; PACK];
        let lanes: &[Duo<f32>; PACK] = if x0 >= lo && x0 + PACK as i64 <= end {
            let from = range.offset as usize + (x0 - lo) as usize;
            values[from..from + PACK]
                .try_into()
                .expect("a pack's lanes are inside the range")
        } else {
            fill_shifted(
                &mut edge,
                x0,
                values,
                range,
                <Duo<f32> as Lane>::LOST,
                <Duo<f32> as Lane>::WON,
            );
            &edge
        };
        pack.value = std::array::from_fn(|i| lanes[i].value);
        pack.tie = std::array::from_fn(|i| lanes[i].tie);
    }
}

/// [`Lane::extend_wide`] of packs: lane by lane.
#[inline(always)]
fn extend_packs(out: &mut Vec<(f64, f64)>, wide: &[([f64; PACK], [f64; PACK])], n: usize) {
    out.extend(
        wide.iter()
            .flat_map(|(v, t)| v.iter().zip(t).map(|(&v, &t)| (v, t)))
            .take(n),
    );
}

/// [`Lane::fill_row`] of a lane that is its own block: the row's lanes in place.
#[inline(always)]
fn fill_in_place<T: Lane>(row: &mut [T], x: i64, values: &[T], range: Range) {
    fill_shifted(row, x, values, range, T::LOST, T::WON);
}

/// [`Lane::extend_wide`] of a lane that is its own block: the sums as they are.
#[inline(always)]
fn extend_as_is<W: Copy>(out: &mut Vec<W>, wide: &[W], n: usize) {
    out.extend_from_slice(&wide[..n]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Duos of varied values and tie chances, some values equal (the maxima's ties).
    fn duos(seed: u32, n: usize) -> Vec<Duo<f32>> {
        (0..n as u32)
            .map(|i| {
                let h = (i + 1).wrapping_mul(2_654_435_761).wrapping_add(seed) >> 8;
                Duo {
                    value: (h % 7) as f32 / 7.0 + (h % 3) as f32 * 1e-3,
                    tie: (h % 101) as f32 / 1013.0,
                }
            })
            .collect()
    }

    fn unpack(packs: &[DuoPack]) -> Vec<(u32, u32)> {
        packs
            .iter()
            .flat_map(|p| (0..PACK).map(|i| (p.value[i].to_bits(), p.tie[i].to_bits())))
            .collect()
    }

    fn bits(duos: &[Duo<f32>]) -> Vec<(u32, u32)> {
        duos.iter()
            .map(|d| (d.value.to_bits(), d.tie.to_bits()))
            .collect()
    }

    fn pack(duos: &[Duo<f32>]) -> DuoPack {
        DuoPack {
            value: std::array::from_fn(|i| duos[i].value),
            tie: std::array::from_fn(|i| duos[i].tie),
        }
    }

    #[test]
    fn a_pack_computes_what_its_duos_compute_lane_by_lane() {
        let (a, b) = (duos(1, PACK), duos(2, PACK));
        let (pa, pb) = (pack(&a), pack(&b));
        let each = |f: fn(Duo<f32>, Duo<f32>) -> Duo<f32>| -> Vec<(u32, u32)> {
            bits(&a.iter().zip(&b).map(|(&x, &y)| f(x, y)).collect::<Vec<_>>())
        };
        assert_eq!(unpack(&[pa + pb]), each(|x, y| x + y));
        assert_eq!(unpack(&[pa * pb]), each(|x, y| x * y));
        assert_eq!(unpack(&[DuoPack::greater(pa, pb)]), each(Duo::greater));
        assert_eq!(
            unpack(&[DuoPack::greater(pb, pa)]),
            each(|x, y| Duo::greater(y, x))
        );
        assert_eq!(
            unpack(&[pa.sixth()]),
            bits(&a.iter().map(|x| x.sixth()).collect::<Vec<_>>())
        );
        let wide = DuoPack::wide_div(DuoPack::wide_add(DuoPack::WIDE_ZERO, pa), 3.0);
        let mut out = Vec::new();
        <Duo<f32> as Lane>::extend_wide(&mut out, &[wide], PACK);
        let one_by_one: Vec<(f64, f64)> = a
            .iter()
            .map(|&x| Duo::<f32>::wide_div(Duo::<f32>::wide_add((0.0, 0.0), x), 3.0))
            .collect();
        assert_eq!(out, one_by_one);
    }

    #[test]
    fn packs_are_filled_with_the_lanes_of_the_stored_range_and_its_constants() {
        let values = duos(3, 40);
        let range = Range {
            offset: 3,
            lo: -10,
            len: 30,
        };
        // Rows of two packs from before the range to past it: wholly inside, across either
        // end, wholly outside.
        for x in [-60, -45, -26, -16, -10, -3, 0, 3, 4, 19, 30, 80] {
            let mut packs = [DuoPack::ZERO; 2];
            <Duo<f32> as Lane>::fill_row(&mut packs, x, &values, range);
            let mut lanes = [Duo::<f32>::ZERO; 2 * PACK];
            fill_shifted(
                &mut lanes,
                x,
                &values,
                range,
                <Duo<f32> as Lane>::LOST,
                <Duo<f32> as Lane>::WON,
            );
            assert_eq!(unpack(&packs), bits(&lanes), "from {x}");
        }
    }

    #[test]
    fn a_duo_is_chosen_by_its_value_and_summed_part_by_part() {
        let a = Duo {
            value: 0.5f32,
            tie: 0.25,
        };
        let b = Duo {
            value: 0.5f32,
            tie: 0.75,
        };
        let c = Duo {
            value: 0.625f32,
            tie: 0.0,
        };
        // Equal values are equal lanes, whatever their tie chances.
        assert_eq!(a.partial_cmp(&b), Some(std::cmp::Ordering::Equal));
        assert!(a == b);
        assert!(c > a);
        let s = (a + b).sixth();
        assert_eq!((s.value, s.tie), (1.0 / 6.0, 1.0 / 6.0));
        let w = Duo::<f32>::wide_div(Duo::<f32>::wide_add((1.0, 2.0), c), 2.0);
        assert_eq!(w, (0.8125, 1.0));
        assert_eq!(Duo::<f32>::wide_value(w), 0.8125);
        // S from W: one less the value, the same tie chance.
        let s = <Duo<f32> as Lane>::flip((0.25, 0.125));
        assert_eq!((s.value, s.tie), (0.75, 0.125));
        assert_eq!(<f64 as Lane>::flip(0.25), 0.75);
    }
}
