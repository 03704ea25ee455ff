package board

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Frames is the static stack information of an ELF's Thumb-2 code, read
// from its disassembly: what each function's prologue takes from the stack
// and which functions it calls.
type Frames struct {
	// Self is the deepest a function's own code takes the stack pointer
	// (pushes, sub sp), in bytes.
	Self map[string]int
	// Calls lists the functions a function calls or tail-calls directly.
	Calls map[string][]string
	// Unknown says why a function's own depth cannot be known (an indirect
	// call, a stack pointer set from a register).
	Unknown map[string]string
}

var (
	fnLine   = regexp.MustCompile(`^[0-9a-f]+ <(.+)>:$`)
	insnLine = regexp.MustCompile(`^\s+[0-9a-f]+:\s+(\S+)\s*(.*)$`)
	target   = regexp.MustCompile(`<([^<>+]+)(\+0x[0-9a-f]+)?>`)
	imm      = regexp.MustCompile(`#(0x[0-9a-f]+|\d+)`)
)

// Analyze disassembles file with llvm-objdump and returns its frames.
func (t *Tools) Analyze(file string) (*Frames, error) {
	out, err := exec.Command(t.Objdump, "-d", "--no-show-raw-insn", file).Output()
	if err != nil {
		return nil, fmt.Errorf("llvm-objdump %s: %v", file, err)
	}
	ef, err := elf.Open(file)
	if err != nil {
		return nil, err
	}
	defer ef.Close()
	syms, err := ef.Symbols()
	if err != nil {
		return nil, err
	}
	funcs := map[uint64]string{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			funcs[s.Value&^1] = s.Name
		}
	}
	// word reads a literal pool entry: LLVM calls a function it calls
	// often through a register loaded from one (blx rN).
	word := func(addr uint64) (uint64, bool) {
		for _, sec := range ef.Sections {
			if sec.Type == elf.SHT_PROGBITS && addr >= sec.Addr && addr+4 <= sec.Addr+sec.Size {
				var b [4]byte
				if _, err := sec.ReadAt(b[:], int64(addr-sec.Addr)); err != nil {
					return 0, false
				}
				return uint64(binary.LittleEndian.Uint32(b[:])), true
			}
		}
		return 0, false
	}
	return parseFrames(out, func(lit uint64) (string, bool) {
		v, ok := word(lit)
		if !ok {
			return "", false
		}
		name, ok := funcs[v&^1]
		return name, ok
	})
}

// literalLoad matches a load of a register from a literal pool entry, as
// llvm-objdump prints it: "r7, [pc, #0x5f8]        @ 0x8620 <...>".
var literalLoad = regexp.MustCompile(`^(r\d+|lr), \[pc, #[^]]*\]\s*@ 0x([0-9a-f]+)`)

// parseFrames reads llvm-objdump's disassembly. A function's depth is the
// largest total of its pushes and stack pointer decrements along its code,
// taken in address order (epilogues only raise the stack pointer again).
// fnAt names the function whose address a literal pool entry holds.
func parseFrames(dis []byte, fnAt func(lit uint64) (string, bool)) (*Frames, error) {
	loaded := map[string]uint64{}  // register -> literal address, in the current function
	var pushed []map[string]uint64 // per push not yet popped: the addresses its registers held
	f := &Frames{Self: map[string]int{}, Calls: map[string][]string{}, Unknown: map[string]string{}}
	cur, depth := "", 0
	seen := map[[2]string]bool{}
	addCall := func(callee string) {
		if callee == cur || seen[[2]string{cur, callee}] {
			return
		}
		seen[[2]string{cur, callee}] = true
		f.Calls[cur] = append(f.Calls[cur], callee)
	}
	sc := bufio.NewScanner(bytes.NewReader(dis))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := fnLine.FindStringSubmatch(line); m != nil {
			cur, depth = m[1], 0
			f.Self[cur] = 0
			clear(loaded)
			pushed = pushed[:0]
			continue
		}
		m := insnLine.FindStringSubmatch(line)
		if m == nil || cur == "" {
			continue
		}
		op, args, full := strings.TrimSuffix(m[1], ".w"), m[2], m[2]
		if i := strings.Index(args, "@"); i >= 0 {
			args = args[:i]
		}
		// Follow function addresses through registers: a literal load
		// sets one, a move copies it, any other write forgets it.
		if dst, _, ok := strings.Cut(args, ","); ok && writesFirst(op) {
			dst = strings.TrimSpace(dst)
			src := strings.TrimSpace(args[len(dst)+1:])
			if a, known := loaded[src]; known && op == "mov" {
				loaded[dst] = a
			} else {
				delete(loaded, dst)
			}
		}
		switch {
		case op == "push" || (op == "stmdb" && strings.HasPrefix(args, "sp!")):
			depth += 4 * regCount(args)
			// Remember the function addresses the pushed registers hold:
			// the matching pop restores them (inline assembly saves and
			// restores every register it uses around its own code).
			saved := map[string]uint64{}
			for _, r := range regNames(args) {
				if a, ok := loaded[r]; ok {
					saved[r] = a
				}
			}
			pushed = append(pushed, saved)
		case op == "vpush":
			n := regCount(args)
			if strings.Contains(args, "d") {
				n *= 2
			}
			depth += 4 * n
		case op == "pop" || (op == "ldm" && strings.HasPrefix(args, "sp!")) || op == "vpop":
			// An epilogue: the depth reached stays the function's.
			var saved map[string]uint64
			if n := len(pushed); n > 0 && op != "vpop" {
				saved, pushed = pushed[n-1], pushed[:n-1]
			}
			for _, r := range regNames(args) {
				if a, ok := saved[r]; ok {
					loaded[r] = a
				} else {
					delete(loaded, r)
				}
			}
		case (op == "sub" || op == "subw") && strings.HasPrefix(args, "sp,"):
			v, ok := immediate(args)
			if !ok {
				f.Unknown[cur] = "stack pointer decremented by a register: " + strings.TrimSpace(line)
				continue
			}
			depth += v
		case op == "str" && strings.Contains(args, "[sp, #-") && strings.HasSuffix(strings.TrimSpace(args), "]!"):
			v, _ := immediate(args)
			depth += v
		case op == "mov" && strings.HasPrefix(args, "sp,"):
			f.Unknown[cur] = "stack pointer set from a register: " + strings.TrimSpace(line)
		case op == "bl":
			if t := target.FindStringSubmatch(args); t != nil {
				addCall(t[1])
			}
		case op == "ldr":
			if l := literalLoad.FindStringSubmatch(full); l != nil {
				a, _ := strconv.ParseUint(l[2], 16, 64)
				loaded[l[1]] = a
			}
		case op == "blx":
			reg := strings.TrimSpace(args)
			if lit, ok := loaded[reg]; ok {
				if name, ok := fnAt(lit); ok {
					addCall(name)
					break
				}
			}
			f.Unknown[cur] = "indirect call: " + strings.TrimSpace(line)
		case op == "b" || strings.HasPrefix(op, "b") && len(op) <= 3:
			// A branch to another function is a tail call.
			if t := target.FindStringSubmatch(args); t != nil && t[1] != cur && t[2] == "" {
				addCall(t[1])
			}
		}
		if depth > f.Self[cur] {
			f.Self[cur] = depth
		}
	}
	return f, sc.Err()
}

// writesFirst says whether an instruction writes its first operand.
func writesFirst(op string) bool {
	switch {
	case strings.HasPrefix(op, "str"), strings.HasPrefix(op, "stm"), strings.HasPrefix(op, "cm"),
		strings.HasPrefix(op, "tst"), strings.HasPrefix(op, "teq"), strings.HasPrefix(op, "push"),
		strings.HasPrefix(op, "pop"), strings.HasPrefix(op, "vst"), op == "b" || strings.HasPrefix(op, "b") && len(op) <= 3,
		op == "bl", op == "blx", op == "bx", op == "cbz", op == "cbnz", op == "it", op == "ite", op == "itt":
		return false
	}
	return true
}

// regList lists the registers of a register list "{r4-r7, lr}" or
// "{d8-d11}", ranges expanded ("r4" ... "r7", "lr"); an entry it cannot
// read stays as written.
func regList(args string) []string {
	i, j := strings.Index(args, "{"), strings.Index(args, "}")
	if i < 0 || j < i {
		return nil
	}
	var names []string
	for _, r := range strings.Split(args[i+1:j], ",") {
		r = strings.TrimSpace(r)
		if a, b, ok := strings.Cut(r, "-"); ok && a != "" {
			x, err1 := strconv.Atoi(strings.TrimLeft(a, "rdsq"))
			y, err2 := strconv.Atoi(strings.TrimLeft(b, "rdsq"))
			if err1 == nil && err2 == nil && y >= x {
				for k := x; k <= y; k++ {
					names = append(names, a[:1]+strconv.Itoa(k))
				}
				continue
			}
		}
		if r != "" {
			names = append(names, r)
		}
	}
	return names
}

// regNames lists the core registers of a register list (regList): "r0"
// to "r12" and "lr"; d and s registers, sp and pc are left out.
func regNames(args string) []string {
	var names []string
	for _, r := range regList(args) {
		if r == "lr" || strings.HasPrefix(r, "r") {
			names = append(names, r)
		}
	}
	return names
}

// regCount counts the registers of a register list "{r4, r5, lr}" or
// "{d8-d11}".
func regCount(args string) int { return len(regList(args)) }

// immediate returns the last immediate operand of an instruction's
// arguments.
func immediate(args string) (int, bool) {
	all := imm.FindAllStringSubmatch(args, -1)
	if len(all) == 0 {
		return 0, false
	}
	v, err := strconv.ParseInt(all[len(all)-1][1], 0, 64)
	if err != nil {
		return 0, false
	}
	return int(v), true
}

// Depth returns the worst-case stack depth of a call of fn: its own depth
// plus that of the deepest function it calls, transitively. It fails on
// recursion, an indirect call or an unknown function on the way. Calls of
// the runtime's panic functions are left out: a panic ends the program.
func (f *Frames) Depth(fn string) (int, error) {
	memo := map[string]int{}
	onPath := map[string]bool{}
	var walk func(fn string, path []string) (int, error)
	walk = func(fn string, path []string) (int, error) {
		if d, ok := memo[fn]; ok {
			return d, nil
		}
		self, ok := f.Self[fn]
		if !ok {
			return 0, fmt.Errorf("%s: not in the disassembly (called from %s)", fn, strings.Join(path, " -> "))
		}
		if why, bad := f.Unknown[fn]; bad {
			return 0, fmt.Errorf("%s (via %s): %s", fn, strings.Join(path, " -> "), why)
		}
		if onPath[fn] {
			return 0, fmt.Errorf("recursion: %s -> %s", strings.Join(path, " -> "), fn)
		}
		onPath[fn] = true
		deepest := 0
		for _, c := range f.Calls[fn] {
			if strings.HasPrefix(c, "runtime.") && strings.Contains(strings.ToLower(c), "panic") {
				continue // the board stops there: a panic is never returned from
			}
			d, err := walk(c, append(path, fn))
			if err != nil {
				return 0, err
			}
			deepest = max(deepest, d)
		}
		onPath[fn] = false
		memo[fn] = self + deepest
		return self + deepest, nil
	}
	return walk(fn, nil)
}

// The painting driver: main runs on a system stack made large (a target
// with a 64 KiB stack and no scheduler, so main runs on it), paints the
// stack below it, calls Invoke (then Reset), and finds the deepest word
// changed.
const (
	paintDepth  = 56 << 10
	paintMargin = 64
)

var stackMain = fmt.Sprintf(`package main

import (
	"device/arm"
	"unsafe"

	p "tg/p"
)

var m p.Model

const depth, margin, pattern = %d, %d, 0xA5C3965A

func sp() uintptr { return arm.AsmFull("mov {}, sp", nil) }

//go:noinline
func paint(top uintptr) {
	for a := top - depth; a < top; a += 4 {
		*(*uint32)(unsafe.Pointer(a)) = pattern
	}
}

//go:noinline
func deepest(top uintptr) uintptr {
	a := top - depth
	for a < top && *(*uint32)(unsafe.Pointer(a)) == pattern {
		a += 4
	}
	return top - a
}

//go:noinline
func invoke() { m.Invoke() }

//go:noinline
func reset() { m.Reset() }

var line [64]byte

func say(name string, v uintptr) {
	n := copy(line[:], name)
	var d [12]byte
	k := len(d)
	for {
		k--
		d[k] = byte('0' + v%%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	n += copy(line[n:], d[k:])
	line[n], line[n+1] = '\n', 0
	arm.SemihostingCall(arm.SemihostingWrite0, uintptr(unsafe.Pointer(&line[0])))
}

func main() {
	// Measured from main's stack pointer: the bytes below it that the
	// call of Invoke (and of Reset) touches, the wrapper's frame included.
	s := sp()
	top := s - margin
	paint(top)
	invoke()
	say("invoke ", deepest(top)+margin)
	paint(top)
	reset()
	say("reset ", deepest(top)+margin)
}
`, paintDepth, paintMargin)

// stackTarget is cortex-m4-qemu with a 64 KiB system stack.
const (
	stackTarget = `{
	"inherits": ["cortex-m4-qemu"],
	"linkerscript": "LD"
}
`
	stackLD = `MEMORY
{
    FLASH_TEXT (rw) : ORIGIN = 0x00000000, LENGTH = 4M
    RAM (xrw)       : ORIGIN = 0x20000000, LENGTH = 4M
}

_stack_size = 64K;

INCLUDE "targets/arm.ld"
`
)

// StackUse is the stack a generated package's Invoke and Reset use on the
// board, measured and computed.
type StackUse struct {
	// Invoke and Reset are the bytes below the caller's stack pointer that
	// a call of each touches, painted and read back on the emulated board
	// (zero inputs).
	Invoke, Reset int
	// Static is the worst-case depth of a call of Invoke from the
	// disassembly (every path, every callee), 0 when it cannot be computed
	// (StaticErr says why).
	Static    int
	StaticErr error
	// Allocs lists the heap allocations TinyGo reports in the package.
	Allocs []string
}

// MeasureStack builds the package in pkgDir for the Cortex-M4 with the
// painting driver (TinyGo flags opt, e.g. "-opt=z") in scratch directory
// dir, runs it on the emulated board and analyzes its ELF.
func (t *Tools) MeasureStack(dir, pkgDir string, opt ...string) (*StackUse, error) {
	u, _, err := t.MeasureStackFrames(dir, pkgDir, opt...)
	return u, err
}

// MeasureStackFrames is MeasureStack, also returning the frames of the
// ELF it measured (the package's functions are named "tg/p.NAME").
func (t *Tools) MeasureStackFrames(dir, pkgDir string, opt ...string) (*StackUse, *Frames, error) {
	files := map[string]string{
		"main.go":     stackMain,
		"target.json": strings.Replace(stackTarget, "LD", filepath.Join(dir, "stack.ld"), 1),
		"stack.ld":    stackLD,
	}
	if err := Module(dir, pkgDir, files); err != nil {
		return nil, nil, err
	}
	flags := append([]string{"-target=" + filepath.Join(dir, "target.json"), "-scheduler=none"}, opt...)
	elf, allocs, err := t.Build(dir, flags...)
	if err != nil {
		return nil, nil, err
	}
	out, err := t.Run(elf, 2*time.Minute)
	if err != nil {
		return nil, nil, err
	}
	u := StackUse{Allocs: allocs}
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(l, "invoke "); ok {
			u.Invoke, _ = strconv.Atoi(strings.TrimSpace(v))
		}
		if v, ok := strings.CutPrefix(l, "reset "); ok {
			u.Reset, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if u.Invoke == 0 {
		return nil, nil, fmt.Errorf("%s: no measurement in the board's output %q", pkgDir, out)
	}
	if u.Invoke >= paintDepth || u.Reset >= paintDepth {
		return nil, nil, fmt.Errorf("%s: the stack used reaches the painted depth (%d bytes)", pkgDir, paintDepth)
	}
	fr, err := t.Analyze(elf)
	if err != nil {
		return nil, nil, err
	}
	u.Static, u.StaticErr = fr.Depth("main.invoke")
	return &u, fr, nil
}
