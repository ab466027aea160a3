export function Inbox(props: { path: string }) {
  return <section className="page" data-path={props.path} />;
}
