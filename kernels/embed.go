package kernels

import "embed"

// Sources holds this package's Go files so that the generator can copy the
// kernels a model uses into the generated package. Test files and this file
// are skipped by the generator.
//
//go:embed *.go
var Sources embed.FS
