package report_test

// Every format registered for the tests that render by format name.
import _ "webbench/report/formats"
