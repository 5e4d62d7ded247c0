// A minimal Docusaurus site configuration, enough for 'docforge init' to recognise the layout.
module.exports = { title: 'Courier', presets: [['classic', { docs: { routeBasePath: 'docs' } }]] };
