// Package tflmgen is the repository root. It holds no code, only the
// directive with which `go generate ./...` regenerates every committed file
// derived from the repository's sources (kernel tables and dispatch, fixture
// models, goldens, generated_examples/), in dependency order:
// internal/devtools/regen lists the steps. go generate runs the packages of
// ./... in import path order, so this one, the root, comes first.
package tflmgen

//go:generate go run ./internal/devtools/regen
