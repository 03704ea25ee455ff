package gen

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/tflm-gen/tflm-gen/gen/emit"
	"github.com/tflm-gen/tflm-gen/gen/layout"
	"github.com/tflm-gen/tflm-gen/gen/program"
	"github.com/tflm-gen/tflm-gen/internal/model"
	"github.com/tflm-gen/tflm-gen/planner"
)

// ModelFile is one model of a package that runs several (GenerateMulti).
type ModelFile struct {
	Name string // the file's path or name, for messages and names
	Data []byte
}

// MultiResult is a generated package running several models.
type MultiResult struct {
	Files map[string][]byte
	// Programs and Joint are the lowered models and their joint plan.
	Programs []*program.Program
	Joint    *layout.Joint
	// Types are the models' type names, in order.
	Types []string
}

// GenerateMulti generates one package in which the models run one at a
// time in one arena planned for all of them (emit.MultiFiles): each
// model's activation and scratch buffers may share bytes with the other
// models', its persistent state has bytes of its own. Each model's type
// is named after its file ("micro_speech.tflite" -> MicroSpeech). With
// Options.Pools the arena is the pools, planned for all the models
// together; with Options.ExternalIO each model's inputs and outputs are
// arrays of the application. The models always take their memory through
// Bind (Options.Bind changes nothing).
func GenerateMulti(models []ModelFile, opt Options) (*MultiResult, error) {
	if err := CheckPackageName(opt.Package); err != nil {
		return nil, err
	}
	res := &MultiResult{}
	seen := map[string]string{}
	var units []emit.Unit
	var graphs []*model.Graph
	for _, m := range models {
		typ, file := modelIdents(m.Name)
		if other, dup := seen[typ]; dup {
			return nil, fmt.Errorf("%s and %s would both be type %s in the package: rename one of the files", other, m.Name, typ)
		}
		seen[typ] = m.Name
		g, err := parse(filepath.Base(m.Name), m.Data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		p, lay, err := lowerGraph(g, opt, 0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		graphs = append(graphs, g)
		res.Programs = append(res.Programs, p)
		res.Types = append(res.Types, typ)
		units = append(units, emit.Unit{Type: typ, File: file, P: p, Alone: lay.ArenaSize()})
	}
	jopt := func() layout.Options {
		return layout.Options{Align: opt.Align, Strategy: opt.Planner, Session: planner.NewSession(opt.Effort),
			Pools: opt.Pools, ExternalIO: opt.ExternalIO}
	}
	joint, err := layout.MakeJoint(res.Programs, jopt())
	if err != nil {
		return nil, err
	}
	// The models run one at a time in the arena the largest needs: each
	// smaller one may use that much (fast kernels kept, fewer operators
	// fused: schedule.Options.Budget). A model takes its program within
	// the others' largest arena where the joint arena comes out no larger.
	for k, g := range graphs {
		budget := 0
		for j, u := range units {
			if j != k {
				budget = max(budget, u.Alone)
			}
		}
		if p := res.Programs[k]; budget <= units[k].Alone || len(p.Groups) == 0 && len(p.Overlaps) == 0 && len(p.Lean) == 0 {
			continue // nothing traded for memory
		}
		p, lay, err := lowerGraph(g, opt, budget)
		if err != nil || lay.ArenaSize() > budget {
			continue // keep the program of the smallest arena
		}
		progs := slices.Clone(res.Programs)
		progs[k] = p
		j2, err := layout.MakeJoint(progs, jopt())
		if err != nil || j2.Plan.Size > joint.Plan.Size {
			continue
		}
		// Alone stays the arena the model needs on its own.
		res.Programs, joint = progs, j2
		units[k].P = p
	}
	if opt.MaxArena > 0 && joint.Plan.Size > opt.MaxArena {
		return nil, fmt.Errorf("%w: the models' joint arena needs %d bytes, %d over the limit of %d (lower bound %d)", ErrTooLarge, joint.Plan.Size, joint.Plan.Size-opt.MaxArena, opt.MaxArena, joint.Plan.LowerBound)
	}
	for k := range units {
		units[k].Lay = joint.Layouts[k]
	}
	res.Joint = joint
	res.Files, err = emit.MultiFiles(units, joint, emit.Options{Package: opt.Package, NoTests: opt.NoTests, Version: opt.Version})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// modelIdents names a model in a package of several: its exported type
// ("person_detect.tflite" -> PersonDetect) and its files' stem
// ("person_detect").
func modelIdents(path string) (typ, file string) {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	words := strings.FieldsFunc(base, func(r rune) bool { return !(r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r))) })
	var t, fl strings.Builder
	for i, w := range words {
		t.WriteString(strings.ToUpper(w[:1]) + w[1:])
		if i > 0 {
			fl.WriteByte('_')
		}
		fl.WriteString(strings.ToLower(w))
	}
	typ, file = t.String(), fl.String()
	if typ == "" || !unicode.IsLetter(rune(typ[0])) {
		typ, file = "M"+typ, "m"+file
	}
	return typ, file
}
