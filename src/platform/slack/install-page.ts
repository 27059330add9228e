/**
 * The pages a distributed Lookout serves to people installing it: what it does, the "Add to
 * Slack" button, and links to the privacy and support pages (Slack's Marketplace review asks
 * for them); then where the install ended. Everything from outside is escaped for HTML.
 */
export interface InstallPageLinks {
  privacyUrl?: string;
  supportUrl?: string;
}

const html = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(title: string, body: string, links: InstallPageLinks): string {
  const footer = [
    links.privacyUrl && `<a href="${html(links.privacyUrl)}">Privacy policy</a>`,
    links.supportUrl && `<a href="${html(links.supportUrl)}">Support</a>`,
  ].filter(Boolean);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${html(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1d1c1d}
a.add{display:inline-block;background:#4a154b;color:#fff;padding:.6rem 1.2rem;border-radius:6px;text-decoration:none;font-weight:600}
footer{margin-top:3rem;color:#616061;font-size:.9rem}footer a{margin-right:1rem;color:inherit}</style></head>
<body>${body}<footer>${footer.join('')}</footer></body></html>`;
}

export const installPage = {
  /** The page at /slack/install: `url` is Slack's authorise page with this install's state. */
  install(url: string, links: InstallPageLinks): string {
    return page(
      'Add Lookout to Slack',
      `<h1>Lookout</h1>
<p>Your website's visitors and the bots among them, in the channels where your team already talks:
ask with <code>/traffic sources last7d</code>, and be told when something moves.</p>
<p>After installing, a workspace admin connects your analytics account from Lookout's App Home.</p>
<p><a class="add" id="add-to-slack" href="${html(url)}">Add to Slack</a></p>`,
      links,
    );
  },
  /** Where the install ended: `back` is Slack's link to the app in the workspace it was installed into. */
  done(team: string, back: string, links: InstallPageLinks): string {
    return page(
      'Lookout is installed',
      `<h1>Lookout is installed in ${html(team)}</h1>
<p>On Lookout's Home tab in Slack, an admin of the workspace chooses “Connect your analytics”.</p>
<p><a class="add" id="back-to-slack" href="${html(back)}">Open Lookout in ${html(team)}</a></p>`,
      links,
    );
  },
  failed(links: InstallPageLinks): string {
    return page(
      'Lookout was not installed',
      `<h1>Lookout was not installed</h1><p>The install was cancelled or has expired. <a href="/slack/install">Start again</a>.</p>`,
      links,
    );
  },
};
