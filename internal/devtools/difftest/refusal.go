package difftest

import (
	"errors"
	"strings"

	"github.com/tflm-gen/tflm-gen/internal/model"
)

// RefusedCleanly reports whether err is a refusal the generator owes a
// model it cannot take: an unsupported-model or an invalid-model error.
func RefusedCleanly(err error) bool {
	return errors.Is(err, model.ErrUnsupported) || errors.Is(err, model.ErrInvalid)
}

// ConvTooLarge reports whether err is the documented refusal of a
// convolution whose accumulator range the kernels do not cover (the 16x8
// kernel's, or the 64-bit accumulator's).
func ConvTooLarge(err error) bool {
	return strings.Contains(err.Error(), "too large for the 16x8 kernel") ||
		strings.Contains(err.Error(), "too large for the 64-bit accumulator")
}
