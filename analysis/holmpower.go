package analysis

import "math"

// holmMultipliers returns, per matched variant under test, the smallest multiplier Holm's adjustment can apply
// to its p: the number of variants (itself included) whose exact floor 2/2^G is at least its own (HolmFloorOf's
// m: at best a variant is ranked after every variant with a lower floor). A/A arms are not in the family.
func holmMultipliers(a *Analysis) map[string]int {
	floors := map[string]float64{}
	for _, v := range a.Variants {
		if !v.All.Matched || v.AA {
			continue
		}
		g := v.All.G()
		if v.All.Paired.Clustered {
			g = v.All.Paired.C
		}
		floors[v.Name] = 2 / math.Pow(2, float64(min(g, 1000)))
	}
	out := map[string]int{}
	for name, f := range floors {
		for _, o := range floors {
			if o >= f {
				out[name]++
			}
		}
	}
	return out
}

// holmPower sets PowerAnalysis.HolmM, MDEHolm and PowerHolm of every variant's primary comparison: the MDE and
// the power of the primary test at α/HolmM, the least strict level Holm's adjustment can test the variant at, so
// that they answer for the verdict (p_holm against α) and not for an unadjusted p. When HolmM times the exact
// floor is at least α no drop can be shown: MDEHolm is NaN and PowerHolm 0 without simulating. Comparisons whose
// post-hoc power was not computed keep NaN.
func holmPower(a *Analysis, in Inputs) {
	ms := holmMultipliers(a)
	for i := range a.Variants {
		c := &a.Variants[i].All
		p := &c.Power
		p.HolmM = max(1, ms[a.Variants[i].Name])
		if p.HolmM == 1 || c.design == nil {
			p.MDEHolm, p.PowerHolm = p.MDE, p.Power
			continue
		}
		level := a.Alpha / float64(p.HolmM)
		if 2/math.Pow(2, float64(min(c.design.G(), 1000))) >= level {
			p.MDEHolm = math.NaN()
			if p.HasEffect {
				p.PowerHolm = 0
			}
			continue
		}
		if in.power != powerOnly {
			p.MDEHolm = MDEPrimary(*c.design, level, in.Power, true)
		}
		if p.HasEffect {
			p.PowerHolm, _ = PowerPrimary(*c.design, clampDelta(c.design.Rates, p.From-p.To), level)
		}
	}
}

// AdjustedMDE is the MDE the verdict answers for: MDEHolm when Holm's adjustment applies (HolmM > 1), else MDE.
func (p PowerAnalysis) AdjustedMDE() float64 {
	if p.HolmM > 1 {
		return p.MDEHolm
	}
	return p.MDE
}

// AdjustedPower is Power at the level the verdict answers for: PowerHolm when Holm's adjustment applies (HolmM
// > 1), else Power.
func (p PowerAnalysis) AdjustedPower() float64 {
	if p.HolmM > 1 {
		return p.PowerHolm
	}
	return p.Power
}

// PowerOverstatement is how far the post-hoc power of a clustered comparison overstated the achieved power where
// MayOverstate holds, in calibration (CALIBRATION.md "Clustered designs" and STATS.md, 2 reps under strong
// within-family correlation, κ 0.95, 1,000 runs each: 12 families × 4 instances 0.379 printed against 0.251
// achieved; 30 families 0.501 against 0.416; 6 families 0.039 against 0.011; at 400 runs 0.372 against 0.228).
// Elsewhere it was within 0.06.
const PowerOverstatement = 0.15

// StrongRepShare is the estimated within-cluster shared-draw share (PowerAnalysis.RepShare) from which
// MayOverstate holds: in calibration with 2 reps it estimated 0.67–0.83 under strong correlation (κ 0.95) and
// 0.40–0.52 under moderate (κ 0.5), where the printed power was within 0.06 of the achieved.
const StrongRepShare = 0.6

// MayOverstate reports whether p's Power is in the region where calibration found the post-hoc power of a
// clustered comparison too high, by up to PowerOverstatement: the unit is a cluster, every task has about 2 or
// more reps (TaskReps ≥ 1.5) and the estimated within-cluster share is strong (RepShare ≥ StrongRepShare). The
// design estimated from a few clusters whose instances move together understates the spread of the cluster sums
// there; the figure is labelled, not corrected.
func (p PowerAnalysis) MayOverstate() bool {
	return p.Unit != UnitTask && p.Unit != "" && p.TaskReps >= 1.5 && p.RepShare >= StrongRepShare
}
