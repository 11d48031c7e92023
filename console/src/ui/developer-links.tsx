/**
 * The server's other doors, for someone who found the console first: talking to an
 * assistant from a browser, the GraphQL playground, the API reference. Plain links: they are
 * the server's pages, outside the console's router.
 */
export function DeveloperLinks() {
  return (
    <ul className="developer-links" aria-label="Developer links">
      <li>
        <a href="/talk">Talk page</a>
      </li>
      <li>
        <a href="/graphql">GraphQL playground</a>
      </li>
      <li>
        <a href="/docs">API reference</a>
      </li>
    </ul>
  );
}
