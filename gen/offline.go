package gen

import "errors"

// EmitOffline returns a copy of the model with TFLite Micro's
// OfflineMemoryAllocation metadata set from the plan.
func EmitOffline(name string, data []byte, opt Options) ([]byte, error) {
	return nil, errors.New("-emit-offline is not implemented yet")
}
