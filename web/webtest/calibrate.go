// The calibration page's trace.

package webtest

// CalibrateTrace is a small trace: a burst of A100 jobs that the pool must grow for.
const CalibrateTrace = `job_id,submit_ts,duration_s,gpus,spec
1,0,3600,8,A100-80G
2,10,3600,8,A100-80G
3,20,3600,8,A100-80G
4,30,1800,4,A100-80G
5,4000,600,2,A100-80G
`
