// Package tasks holds the pages of the queue with its submit form and dry run, task pages and the
// task list, templates with their versions, schedules and advice, and the notifications that ask
// about a task.
package tasks
