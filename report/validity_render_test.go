package report

import ()
