export function Simulator(props: { path: string }) {
  return <section className="page" data-path={props.path} />;
}
