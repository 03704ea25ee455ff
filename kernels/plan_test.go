package kernels

import (
	"math"
	"math/rand"
	"testing"
)

// planRecord builds an rqOne from a plan's fields the way the in-process
// runner does (NewParams, int64 values), and fails if a field is unknown.
func planRecord(t *testing.T, f map[string]int64) rqOne {
	t.Helper()
	m := map[string]any{}
	for k, v := range f {
		m[k] = v
	}
	p, ok := NewParams("rqOne", m).(*rqOne)
	if !ok || p == nil {
		t.Fatalf("NewParams(rqOne, %v) = %v", f, p)
	}
	return *p
}

// TestPlanRQOne checks that PlanRQOne accepts exactly what rqOneSet accepts
// and that its fields rebuild rqOneSet's record, for random requantizations
// (right shifts 0-25, left shifts 1-4, narrow clamps) of which some must be
// declined.
func TestPlanRQOne(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	var acc, dec int
	for i := 0; i < 2000; i++ {
		q := fcTRQ(int32(1<<30+r.Intn(1<<30)), r.Intn(30)-25)
		zo := int32(r.Intn(512) - 256)
		lo, hi := int32(-128), int32(127)
		if i%3 == 1 {
			lo, hi = max(zo, -128), min(zo+int32(r.Intn(200)), 127)
		}
		var want rqOne
		ok := rqOneSet(&want, q.mult, q.lsh, q.rsh, zo, lo, hi)
		f, got := PlanRQOne(q.mult, q.lsh, q.rsh, zo, lo, hi)
		if got != ok {
			t.Fatalf("PlanRQOne(%d, %d, %d, %d, %d, %d) ok = %v, rqOneSet says %v", q.mult, q.lsh, q.rsh, zo, lo, hi, got, ok)
		}
		if !ok {
			dec++
			continue
		}
		acc++
		if rec := planRecord(t, f); rec != want {
			t.Fatalf("PlanRQOne's record %+v, rqOneSet's %+v", rec, want)
		}
	}
	if acc < 500 || dec < 200 {
		t.Fatalf("%d accepted, %d declined: the cases do not cover both", acc, dec)
	}
}

// TestPlanSVDF checks PlanSVDF against svdfFastPlan for both state types,
// shapes the plan takes and declines, and random requantizations.
func TestPlanSVDF(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	var acc, dec int
	for i := 0; i < 2000; i++ {
		st16 := i%2 == 1
		q1, q2 := fcTRQ(int32(1<<30+r.Intn(1<<30)), r.Intn(26)-23), fcTRQ(int32(1<<30+r.Intn(1<<30)), r.Intn(26)-23)
		p := svdfParams{
			rank: 1 + r.Intn(4)/3, memory: []int{8, 16, 10, 32}[r.Intn(4)], numFilters: 16, numUnits: 16,
			outZP: int32(r.Intn(256) - 128), octW: true,
			mult1: q1.mult, lsh1: q1.lsh, rsh1: q1.rsh, mult2: q2.mult, lsh2: q2.lsh, rsh2: q2.rsh,
		}
		if r.Intn(8) == 0 {
			p.numFilters = 32 // more filters than units: declined
		}
		var wf, wt rqOne
		ok := svdfFastPlan(&p, st16, &wf, &wt)
		ff, ft, got := PlanSVDF(st16, p.rank, p.memory, p.numFilters, p.numUnits, p.outZP, p.mult1, p.lsh1, p.rsh1, p.mult2, p.lsh2, p.rsh2)
		if got != ok {
			t.Fatalf("PlanSVDF ok = %v, svdfFastPlan says %v for %+v (int16 state %v)", got, ok, p, st16)
		}
		if !ok {
			dec++
			continue
		}
		acc++
		if f, tr := planRecord(t, ff), planRecord(t, ft); f != wf || tr != wt {
			t.Fatalf("PlanSVDF's records %+v %+v, svdfFastPlan's %+v %+v", f, tr, wf, wt)
		}
	}
	if acc < 200 || dec < 200 {
		t.Fatalf("%d accepted, %d declined: the cases do not cover both", acc, dec)
	}
}

// TestPlanLSTMInt8 checks PlanLSTMInt8 against lstmInt8Form on
// requantizations of each form: exponents right shifts only (lstmInt8R),
// one of them a left shift, moved to each of the eleven places in turn
// (lstmInt8G), and a multiplier near 2^31 where one rounding step could
// overflow (lstmInt8Wide).
func TestPlanLSTMInt8(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	seen := map[string]int{}
	for i := 0; i < 600; i++ {
		var inM, recM [4]int32
		var inSh, recSh [4]int
		for k := range inM {
			inM[k], recM[k] = int32(1<<30+r.Intn(1<<30)), int32(1<<30+r.Intn(1<<30))
			inSh[k], recSh[k] = -1-r.Intn(20), -1-r.Intn(20)
		}
		m := [3]int32{int32(1<<30 + r.Intn(1<<30)), int32(1<<30 + r.Intn(1<<30)), int32(1<<30 + r.Intn(1<<30))}
		sh := [3]int{-1 - r.Intn(20), -1 - r.Intn(20), -1 - r.Intn(20)}
		switch j := i % 12; {
		case j < 4:
			inSh[j] = 1 + r.Intn(3) // a left shift: the general form
		case j < 8:
			recSh[j-4] = 0 // no shift: the general form
		case j < 11:
			sh[j-8] = 0
		default:
			if i%24 == 11 {
				recM[r.Intn(4)], recSh[0] = math.MaxInt32, -30 // lstmR could overflow
			}
		}
		g := [4]lstmGate{}
		for k := range g {
			g[k] = lstmGate{inMult: inM[k], recMult: recM[k], inShift: inSh[k], recShift: recSh[k]}
		}
		p := lstmParams{forgetMult: m[0], forgetShift: sh[0], inputMult: m[1], inputShift: sh[1], hidMult: m[2], hidShift: sh[2]}
		want := [...]string{lstmFormG: "lstmInt8G", lstmFormR: "lstmInt8R", lstmFormWide: "lstmInt8Wide"}[lstmInt8Form(&p, &g[0], &g[1], &g[2], &g[3])]
		got := PlanLSTMInt8(inM, recM, inSh, recSh, m[0], sh[0], m[1], sh[1], m[2], sh[2])
		if got != want {
			t.Fatalf("case %d: PlanLSTMInt8 = %s, lstmInt8Form says %s", i, got, want)
		}
		seen[got]++
	}
	if len(seen) != 3 {
		t.Fatalf("forms planned: %v, want all three", seen)
	}
}
