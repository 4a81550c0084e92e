package llm

// DecodeResponse reads a 2xx chat.completion body raw exactly as Client.Chat does (the same reasoning
// extraction, tool-call normalisation and usage, estimated from reqBody when the body has none), for callers
// that see a call's bytes without making it (runner/modelproxy records an external agent's calls). Errors are
// *Error (class infra for a body that is not a chat.completion; the class of the body's "error" object when a
// 2xx carries one). Tool calls without an id get ids "call_wb_<n>" numbered per call of DecodeResponse.
func DecodeResponse(reqBody, raw []byte) (*Response, error) {
	var c Client
	out, e := c.decodeResponse(reqBody, raw, nil)
	if e != nil {
		return nil, e
	}
	return out, nil
}

// ClassifyResponse classifies a non-2xx response (status and body raw) exactly as Client.Chat does: the
// body's error message (OpenAI's {"error": {"message", "type", "param", "code"}} and the other shapes
// classify.go reads), type, code, class and hint, redacted with RedactString and clipped.
func ClassifyResponse(status int, raw []byte) *Error {
	var c Client
	e, _ := c.classify(status, raw)
	return e
}
