// Package views is what every area's pages share: the layout (Page, the navigation, the
// language switch, CSRF fields), the components several areas show (task links, booking
// windows, charts' ticks, form errors), the view data they pass between them (QueueRow,
// BoardGPU, ProjectView), and the formatters (yuan, hours, clocks, links). Each area's pages
// are a package under views/ (board, tasks, projects, pools, bills, people, services) that
// imports this one and never another area's; templates do no I/O and take typed arguments.
package views
