package hep

// For the tests of package hep_test: the result as the core's JSON text.
var (
	// FinishJSON is (*Stream).finishJSON.
	FinishJSON = (*Stream).finishJSON
	// SupervisorResultJSON is (*Supervisor).resultJSON.
	SupervisorResultJSON = (*Supervisor).resultJSON
)
