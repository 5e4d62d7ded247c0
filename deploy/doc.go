// Package deploy will hold the systemd user units and the launchd agent that run the DocForge
// manager as a service, embedded for 'docforge manager install'. Nothing is implemented here
// yet.
package deploy
