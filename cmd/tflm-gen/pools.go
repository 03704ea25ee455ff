package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tflm-gen/tflm-gen/planner"
)

// poolFlags collects the -pool flags: NAME:BYTES[:COST].
type poolFlags []planner.Pool

// maxPools bounds the -pool flags of one run.
const maxPools = 8

func (p *poolFlags) String() string {
	var parts []string
	for _, q := range *p {
		parts = append(parts, fmt.Sprintf("%s:%d:%d", q.Name, q.Size, q.Cost))
	}
	return strings.Join(parts, " ")
}

// Set parses one -pool flag.
func (p *poolFlags) Set(s string) error {
	pool, err := parsePool(s)
	if err != nil {
		return err
	}
	for _, q := range *p {
		if q.Name == pool.Name {
			return fmt.Errorf("pool %q given twice", pool.Name)
		}
	}
	if len(*p) == maxPools {
		return fmt.Errorf("more than %d pools", maxPools)
	}
	*p = append(*p, pool)
	return nil
}

// parsePool parses NAME:BYTES[:COST]: NAME lower-case letters and digits
// starting with a letter (it names Go identifiers: dtcm -> DTCMSize),
// BYTES a byte count that may end in K (KiB) or M (MiB), COST a positive
// integer (default 1).
func parsePool(s string) (planner.Pool, error) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return planner.Pool{}, fmt.Errorf("%q: want NAME:BYTES or NAME:BYTES:COST, e.g. dtcm:64K:1", s)
	}
	name := parts[0]
	if err := checkPoolName(name); err != nil {
		return planner.Pool{}, err
	}
	size, err := parseBytes(parts[1])
	if err != nil {
		return planner.Pool{}, fmt.Errorf("pool %q: %w", name, err)
	}
	cost := int64(1)
	if len(parts) == 3 {
		cost, err = strconv.ParseInt(parts[2], 10, 64)
		if err != nil || cost < 1 || cost > 1<<20 {
			return planner.Pool{}, fmt.Errorf("pool %q: cost %q: want an integer from 1 to %d", name, parts[2], 1<<20)
		}
	}
	return planner.Pool{Name: name, Size: size, Cost: cost}, nil
}

// checkPoolName accepts 1 to 16 lower-case letters and digits, starting
// with a letter.
func checkPoolName(name string) error {
	ok := len(name) >= 1 && len(name) <= 16 && name[0] >= 'a' && name[0] <= 'z'
	for _, r := range name {
		ok = ok && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}
	if !ok {
		return fmt.Errorf("pool name %q: want 1 to 16 lower-case letters and digits, starting with a letter (it names Go identifiers: dtcm -> DTCMSize)", name)
	}
	return nil
}

// maxPoolBytes is the largest pool: the arena must fit a 32-bit int.
const maxPoolBytes = 1<<31 - 1

// parseBytes parses a byte count with an optional K (1024) or M (1024*1024)
// suffix.
func parseBytes(s string) (int, error) {
	mult := int64(1)
	num := s
	switch {
	case strings.HasSuffix(s, "K"), strings.HasSuffix(s, "k"):
		mult, num = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M"), strings.HasSuffix(s, "m"):
		mult, num = 1<<20, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > maxPoolBytes/mult {
		return 0, fmt.Errorf("size %q: want a byte count from 0 to %d, optionally with K or M", s, maxPoolBytes)
	}
	return int(n * mult), nil
}
