package runner

// modelProxy records the model calls an external agent makes (agent/modelproxy, once merged).
type modelProxy interface {
	// URL is the base URL the agent is given (WEBBENCH_BASE_URL).
	URL() string
	// Close stops it and returns the calls it recorded, in order.
	Close() []modelCallStep
}

// directProxy hands the upstream URL over unchanged and records nothing (until agent/modelproxy is merged).
type directProxy string

func (d directProxy) URL() string            { return string(d) }
func (d directProxy) Close() []modelCallStep { return nil }

// startModelProxy starts the recording proxy in front of upstream, adding the key when not empty.
func startModelProxy(upstream, key string) (modelProxy, error) {
	_ = key
	return directProxy(upstream), nil
}
